import type { OutboundConfig } from '../config/schema.js';
import { ChainOutbound } from './chain-outbound.js';
import type { Hop } from './hop.js';

export type HttpOutboundConfig = Extract<OutboundConfig, { type: 'http' }>;

export function httpHop(config: HttpOutboundConfig): Hop {
  const hop: Hop = { tag: config.tag, protocol: 'http', server: config.server, port: config.port };
  if (config.username !== undefined) hop.username = config.username;
  if (config.password !== undefined) hop.password = config.password;
  return hop;
}

/** An HTTP CONNECT upstream (RFC 9110 §9.3.6), with Basic proxy auth when configured. */
export class HttpOutbound extends ChainOutbound {
  constructor(config: HttpOutboundConfig) {
    super(config.tag, [httpHop(config)], 'http');
  }
}
