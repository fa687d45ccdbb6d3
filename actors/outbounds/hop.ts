import { isIP } from 'node:net';
import type { Endpoint, RelayHop } from '../../streams/contract.js';
import type { OutboundConfig } from '../config/schema.js';
import type { Secret } from '../config/secret.js';
import { isDialPort } from '../net/dial-port.js';
import { isHostName } from '../net/host-name.js';

export type HopConfig = Extract<OutboundConfig, { type: 'socks' | 'http' }>;

/** One upstream proxy of a chain, as configured by a `socks` or `http` outbound. */
export interface Hop {
  tag: string;
  protocol: 'socks' | 'http';
  server: string;
  port: number;
  username?: string;
  password?: Secret;
}

/** The hop a `socks` or `http` outbound config describes; credentials only when given. */
export function hopOf(config: HopConfig): Hop {
  const hop: Hop = { tag: config.tag, protocol: config.type, server: config.server, port: config.port };
  if (config.username !== undefined) hop.username = config.username;
  if (config.password !== undefined) hop.password = config.password;
  return hop;
}

export function hopEndpoint(hop: Hop): Endpoint {
  return { host: hop.server, port: hop.port };
}

/** The relay_chain element of a hop: no credentials, ever. */
export function relayHopOf(hop: Hop): RelayHop {
  return { tag: hop.tag, protocol: hop.protocol, server: hop.server, port: hop.port };
}

/**
 * Whether `dest` may be asked of a hop: a host name (isHostName) or an IP literal
 * without a zone id, and a port of 1 to 65535. An HTTP hop's request line and Host
 * header carry it next to this node's Proxy-Authorization, so a CR, LF or space in it
 * would let whoever chose the target add headers or a whole request of their own, sent
 * with the node's credentials; a SOCKS5 hop's length byte counts characters where
 * the bytes are UTF-8, so a non-ASCII name would shift the port. The inbounds refuse
 * such targets already; this holds whatever path a target took to get here.
 */
export function sendableTarget(dest: Endpoint): boolean {
  const host = isIP(dest.host) !== 0 ? !dest.host.includes('%') : isHostName(dest.host);
  return host && isDialPort(dest.port);
}
