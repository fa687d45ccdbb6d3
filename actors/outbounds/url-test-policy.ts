import type { Policy } from './outbound-set.js';

/** A url_test group: routes to the member its probes chose (the first member until a probe says otherwise). */
export class UrlTestPolicy implements Policy {
  readonly kind = 'url_test';
  private chosen: string;

  constructor(
    readonly tag: string,
    readonly members: readonly string[],
  ) {
    this.chosen = members[0]!;
  }

  current(): string {
    return this.chosen;
  }
}
