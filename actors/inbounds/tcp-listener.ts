import { createServer, type Server, type Socket } from 'node:net';
import type { Logger } from 'pino';
import { listenOn } from '../net/listen-on.js';
import { plainIp } from '../net/plain-ip.js';

/**
 * A TCP listener that hands each connection to `onConnection` and guarantees that
 * nothing a client does can throw out of it. Half-open is allowed so a client's
 * FIN travels on to the remote.
 */
export class TcpListener {
  private server: Server | null = null;

  constructor(
    /** Which listener of the config this is, for its errors: `inbound "mixed-in"`. */
    private readonly name: string,
    private readonly host: string,
    private readonly port: number,
    private readonly onConnection: (socket: Socket) => Promise<void>,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    const server = createServer({ allowHalfOpen: true, noDelay: true }, (socket) => {
      socket.on('error', () => socket.destroy());
      this.onConnection(socket).catch((err: unknown) => {
        // Handshake refusals are logged by the sessions: what reaches here is unforeseen.
        this.log.warn({ err }, 'connection handler failed');
        socket.destroy();
      });
    });
    this.server = server;
    await listenOn(server, { host: this.host, port: this.port }, this.name);
    server.on('error', (err) => this.log.error({ err }, 'listener error'));
  }

  /**
   * Stops accepting. It does not wait for open connections: close() calls back only
   * once every one has ended, and ending the open flows is the engine's next step.
   */
  stop(): Promise<void> {
    this.server?.close();
    return Promise.resolve();
  }

  address(): { host: string; port: number } | null {
    const a = this.server?.address();
    return a && typeof a === 'object' ? { host: a.address, port: a.port } : null;
  }
}

/** The client's address, with IPv4-mapped IPv6 written as plain IPv4. */
export function peerOf(socket: Socket): { ip: string; port: number } | undefined {
  if (!socket.remoteAddress || socket.remotePort === undefined) return undefined;
  return { ip: plainIp(socket.remoteAddress), port: socket.remotePort };
}
