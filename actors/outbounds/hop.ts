import type { Endpoint, RelayHop } from '../../streams/contract.js';
import type { Secret } from '../config/secret.js';

/** One upstream proxy of a chain, as configured by a `socks` or `http` outbound. */
export interface Hop {
  tag: string;
  protocol: 'socks' | 'http';
  server: string;
  port: number;
  username?: string;
  password?: Secret;
}

export function hopEndpoint(hop: Hop): Endpoint {
  return { host: hop.server, port: hop.port };
}

/** The relay_chain element of a hop: no credentials, ever. */
export function relayHopOf(hop: Hop): RelayHop {
  return { tag: hop.tag, protocol: hop.protocol, server: hop.server, port: hop.port };
}

/** `host:port` as written in a CONNECT request line and in messages; IPv6 in brackets. */
export function authority(endpoint: Endpoint): string {
  return endpoint.host.includes(':') ? `[${endpoint.host}]:${endpoint.port}` : `${endpoint.host}:${endpoint.port}`;
}
