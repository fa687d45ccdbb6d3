import type { Policy } from './outbound-set.js';

/**
 * A url_test group: routes to the member its probes chose (the first member until a
 * probe round says otherwise). The probe runner (actors/policies) makes the choice.
 */
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

  /** Switches to a member; returns the previous one. */
  choose(member: string): string {
    if (!this.members.includes(member)) throw new RangeError(`"${member}" is not a member of url_test "${this.tag}"`);
    const previous = this.chosen;
    this.chosen = member;
    return previous;
  }
}
