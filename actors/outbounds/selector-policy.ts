import type { Policy } from './outbound-set.js';

/** A selector: one member chosen by hand (`select`), the configured default at start. */
export class SelectorPolicy implements Policy {
  readonly kind = 'selector';
  private selected: string;

  constructor(
    readonly tag: string,
    readonly members: readonly string[],
    initial: string | undefined,
  ) {
    this.selected = initial !== undefined && members.includes(initial) ? initial : members[0]!;
  }

  current(): string {
    return this.selected;
  }

  /** Switches to a direct member; returns the previous one. */
  select(member: string): string {
    if (!this.members.includes(member)) throw new RangeError(`"${member}" is not a member of selector "${this.tag}"`);
    const previous = this.selected;
    this.selected = member;
    return previous;
  }
}
