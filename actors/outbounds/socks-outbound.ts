import type { OutboundConfig } from '../config/schema.js';
import { ChainOutbound } from './chain-outbound.js';
import type { Hop } from './hop.js';

export type SocksOutboundConfig = Extract<OutboundConfig, { type: 'socks' }>;

export function socksHop(config: SocksOutboundConfig): Hop {
  const hop: Hop = { tag: config.tag, protocol: 'socks', server: config.server, port: config.port };
  if (config.username !== undefined) hop.username = config.username;
  if (config.password !== undefined) hop.password = config.password;
  return hop;
}

/** A SOCKS5 upstream (RFC 1928), with username/password (RFC 1929) when configured. */
export class SocksOutbound extends ChainOutbound {
  constructor(config: SocksOutboundConfig) {
    super(config.tag, [socksHop(config)], 'socks');
  }
}
