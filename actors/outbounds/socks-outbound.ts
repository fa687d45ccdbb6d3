import type { OutboundConfig } from '../config/schema.js';
import { ChainOutbound } from './chain-outbound.js';
import { hopOf } from './hop.js';

/** A SOCKS5 upstream (RFC 1928), with username/password (RFC 1929) when configured. */
export class SocksOutbound extends ChainOutbound {
  constructor(config: Extract<OutboundConfig, { type: 'socks' }>) {
    super(config.tag, [hopOf(config)], 'socks');
  }
}
