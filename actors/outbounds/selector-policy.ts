import type { Policy } from './outbound-set.js';

/** Told of every switch: the new member and the one before it. */
export type SelectListener = (selected: string, previous: string) => void;

/** A selector: one member chosen by hand (`select`), the configured default at start. */
export class SelectorPolicy implements Policy {
  readonly kind = 'selector';
  private selected: string;
  private readonly listeners = new Set<SelectListener>();

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

  /**
   * Switches to a direct member; returns the previous one. A member that is a group
   * is kept as its tag: the group decides its own choice.
   */
  select(member: string): string {
    if (!this.members.includes(member)) throw new RangeError(`"${member}" is not a member of selector "${this.tag}"`);
    const previous = this.selected;
    this.selected = member;
    for (const listener of this.listeners) listener(member, previous);
    return previous;
  }

  /** Calls `listener` after every `select`; returns the function that removes it. */
  onSelect(listener: SelectListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
