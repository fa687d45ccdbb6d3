import { isIP } from 'node:net';
import type { SocksTarget } from '../socks5/socks5-wire.js';
import { plainIp } from '../net/plain-ip.js';

function unspecified(host: string): boolean {
  return host === '0.0.0.0' || host === '::';
}

/**
 * Which datagrams belong to the association's client. The IP is always the control
 * connection's peer: the request's DST.ADDR is where the client says it will send
 * from, which behind a NAT is an address we never see. DST.PORT is taken when the
 * request names the peer's own IP or no IP; otherwise the port is learned from the
 * first datagram that arrives from the client's IP.
 */
export class ClientGate {
  readonly ip: string;
  private port: number | null;

  constructor(peerIp: string, requested: SocksTarget) {
    this.ip = plainIp(peerIp);
    const sameHost = unspecified(requested.host) || (isIP(requested.host) !== 0 && plainIp(requested.host) === this.ip);
    this.port = sameHost && requested.port !== 0 ? requested.port : null;
  }

  /** The client's port once known: where replies go. */
  get clientPort(): number | null {
    return this.port;
  }

  /** Whether a datagram from `address`:`port` is the client's; the first one from its IP fixes the port. */
  admits(address: string, port: number): boolean {
    if (address !== this.ip && plainIp(address) !== this.ip) return false;
    this.port ??= port;
    return this.port === port;
  }
}
