import type { Socket } from 'node:net';
import type { SocksTarget } from '../socks5/socks5-wire.js';
import { firstHopFailure, negotiationFailure } from '../outbounds/hop-failure.js';
import { hopEndpoint, type Hop } from '../outbounds/hop.js';
import { socks5Request } from '../socks5/socks5-client.js';
import { tcpConnect } from '../outbounds/tcp-connect.js';

export interface HopAssociation {
  /** The TCP control connection: the hop keeps the association while it is open. */
  control: Socket;
  /** Where the hop relays datagrams (BND.ADDR:BND.PORT; an unspecified address means the hop's own). */
  relay: SocksTarget;
}

function unspecified(host: string): boolean {
  return host === '0.0.0.0' || host === '::';
}

/**
 * Asks a SOCKS5 hop for a UDP association (RFC 1928 §7): a TCP connection, the
 * greeting and auth, then UDP ASSOCIATE with DST 0.0.0.0:0 (weir does not know its
 * sending port before the hop's answer). Failures name the hop, like a TCP chain's.
 */
export async function associateWithHop(hop: Hop, timeoutMs: number): Promise<HopAssociation> {
  let control: Socket;
  try {
    control = await tcpConnect(hopEndpoint(hop), timeoutMs);
  } catch (err) {
    throw firstHopFailure(err, hop);
  }
  try {
    const { bound } = await socks5Request(control, hop, 'udp_associate', { host: '0.0.0.0', port: 0 }, Math.max(1, timeoutMs));
    const relayHost = unspecified(bound.host) ? (control.remoteAddress ?? hop.server) : bound.host;
    return { control, relay: { host: relayHost, port: bound.port } };
  } catch (err) {
    control.destroy();
    throw negotiationFailure(err, [hop], 0, false);
  }
}
