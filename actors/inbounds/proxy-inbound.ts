import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Inbound } from '../contracts/inbound.js';
import type { ConnectionBudget } from './connection-budget.js';
import { httpProxyServer, handleHttp } from './http-session.js';
import type { InboundEnv } from './inbound-env.js';
import { handleMixed } from './mixed-session.js';
import { handleSocks5 } from './socks5-session.js';
import { TcpListener } from './tcp-listener.js';

export type InboundProtocol = 'socks' | 'http' | 'mixed';

/** One configured inbound: a TCP listener speaking SOCKS5, HTTP or both. */
export class ProxyInbound implements Inbound {
  private readonly listener: TcpListener;
  private readonly http: Server;

  constructor(
    readonly protocol: InboundProtocol,
    listen: { host: string; port: number },
    private readonly env: InboundEnv,
    private readonly connections: ConnectionBudget,
  ) {
    this.http = httpProxyServer(env);
    this.listener = new TcpListener(`inbound "${env.inbound.tag}"`, listen.host, listen.port, (socket) => this.accept(socket), env.log);
  }

  get tag(): string {
    return this.env.inbound.tag;
  }

  start(): Promise<void> {
    return this.listener.start();
  }

  async stop(): Promise<void> {
    await this.listener.stop();
    this.http.closeIdleConnections();
  }

  address(): { host: string; port: number } | null {
    return this.listener.address();
  }

  private async accept(socket: Socket): Promise<void> {
    if (!this.connections.admit(socket)) return void socket.destroy();
    switch (this.protocol) {
      case 'socks':
        return handleSocks5(this.env, socket);
      case 'http':
        return handleHttp(this.http, socket, this.env.handshakeTimeoutMs);
      case 'mixed':
        return handleMixed(this.env, this.http, socket);
    }
  }
}
