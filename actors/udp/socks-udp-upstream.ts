import dgram from 'node:dgram';
import { isIP, type Socket } from 'node:net';
import type { RelayHop } from '../../streams/contract.js';
import type { SocksTarget } from '../socks5/socks5-wire.js';
import { hopFailure } from '../outbounds/hop-failure.js';
import { relayHopOf, type Hop } from '../outbounds/hop.js';
import { headerMap, udpHeaderLength } from './address-map.js';
import { plainIp } from '../net/plain-ip.js';
import { associateWithHop } from './socks-associate.js';
import { reportSend, type UdpUpstream, type UdpUpstreamEvents } from './udp-upstream.js';

function ignore(): void {}

/**
 * Relays through one SOCKS5 hop's UDP association: datagrams go to the hop's relay
 * address with the SOCKS UDP header of their destination, and the hop's answers,
 * already framed with their source, go to the client as they are. The socket is
 * connected to the relay, so the kernel drops datagrams from anyone else.
 */
export class SocksUdpUpstream implements UdpUpstream {
  readonly relay_chain: RelayHop[];
  /** The hop resolves the destinations: none is known here (not the hop's own address). */
  readonly resolved_ip = undefined;
  private readonly headers = headerMap();
  private closed = false;

  private constructor(
    hop: Hop,
    readonly control: Socket,
    private readonly socket: dgram.Socket,
    private readonly events: UdpUpstreamEvents,
  ) {
    this.relay_chain = [relayHopOf(hop)];
    socket.on('message', (msg) => {
      const header = udpHeaderLength(msg);
      if (header < 0) events.recvFailed();
      else events.reply(msg, msg.length - header, msg.length);
    });
    const broken = (err: Error): void => {
      if (!this.closed) events.broken(err);
      this.close();
    };
    socket.on('error', broken);
    control.on('error', broken);
    control.once('end', () => broken(new Error(`hop "${hop.tag}" ended the control connection of the UDP association`)));
    control.once('close', () => broken(new Error(`hop "${hop.tag}" closed the control connection of the UDP association`)));
    // Nothing more is said on the control connection; read it only to see it end.
    control.resume();
  }

  static async open(hop: Hop, timeoutMs: number, events: UdpUpstreamEvents): Promise<SocksUdpUpstream> {
    const { control, relay } = await associateWithHop(hop, timeoutMs);
    // Until the upstream listens, an error only ends the socket; the check below sees it.
    control.on('error', ignore);
    const family = isIP(relay.host) === 6 ? 6 : 4;
    const socket = dgram.createSocket(family === 6 ? 'udp6' : 'udp4');
    // Sent from the control connection's own address: the hop admits datagrams from its client's IP.
    const local = control.localAddress === undefined ? undefined : plainIp(control.localAddress);
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('error', reject);
        // exclusive: in a worker of node.workers, a socket of its own, not one node:cluster shares through the hub.
        socket.bind({ port: 0, ...(local !== undefined && isIP(local) === family && { address: local }), exclusive: true }, () =>
          socket.connect(relay.port, relay.host, () => {
            socket.off('error', reject);
            resolve();
          }),
        );
      });
      if (control.destroyed || control.readableEnded) throw new Error('the control connection ended');
    } catch (err) {
      socket.close();
      control.destroy();
      const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
      throw hopFailure('HOP_CLOSED', hop, `gave relay ${relay.host}:${relay.port}, which could not be used: ${why}`);
    } finally {
      control.off('error', ignore);
    }
    return new SocksUdpUpstream(hop, control, socket, events);
  }

  send(target: SocksTarget, data: Buffer): void {
    const header = this.headers.get(target.host, target.port);
    this.socket.send([header, data], (err: Error | null, bytes: number) => {
      if (!this.closed) reportSend(this.events, err, bytes, header.length);
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.close();
    this.control.destroy();
  }
}
