import type { DialResult, Outbound } from '../contracts/outbound.js';

/** Refuses every flow routed to it: the flow ends `blocked`. */
export class BlockOutbound implements Outbound {
  readonly protocol = 'block';
  readonly kind = 'block';
  readonly chained = false;

  constructor(readonly tag: string) {}

  dial(): Promise<DialResult> {
    return Promise.reject(new Error(`outbound "${this.tag}" blocks every flow`));
  }
}
