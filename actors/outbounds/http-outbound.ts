import type { OutboundConfig } from '../config/schema.js';
import { ChainOutbound } from './chain-outbound.js';
import { hopOf } from './hop.js';

/** An HTTP CONNECT upstream (RFC 9110 §9.3.6), with Basic proxy auth when configured. */
export class HttpOutbound extends ChainOutbound {
  constructor(config: Extract<OutboundConfig, { type: 'http' }>) {
    super(config.tag, [hopOf(config)], 'http');
  }
}
