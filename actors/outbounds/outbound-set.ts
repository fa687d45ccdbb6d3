import type { Outbound } from '../contracts/outbound.js';

/** A group outbound: it names one of its members at any moment. */
export interface Policy {
  readonly tag: string;
  readonly kind: 'selector' | 'url_test';
  readonly members: readonly string[];
  current(): string;
}

export interface Resolved {
  outbound: Outbound;
  /** Tags from the decided target down to the leaf outbound. */
  selection_chain: string[];
}

/** Every outbound by tag, leaves and groups, and the walk from a tag down to its leaf. */
export class OutboundSet {
  constructor(
    private readonly leaves: ReadonlyMap<string, Outbound>,
    readonly policies: ReadonlyMap<string, Policy>,
  ) {}

  has(tag: string): boolean {
    return this.leaves.has(tag) || this.policies.has(tag);
  }

  leaf(tag: string): Outbound | undefined {
    return this.leaves.get(tag);
  }

  resolve(tag: string): Resolved {
    const chain: string[] = [];
    let current = tag;
    // Config validation rejects cycles; the bound guards against a bad hot reload.
    for (let depth = 0; depth <= this.policies.size; depth++) {
      chain.push(current);
      const leaf = this.leaves.get(current);
      if (leaf) return { outbound: leaf, selection_chain: chain };
      const policy = this.policies.get(current);
      if (!policy) throw new Error(`unknown outbound tag "${current}"`);
      current = policy.current();
    }
    throw new Error(`outbound "${tag}" does not resolve to a leaf: ${chain.join(' -> ')}`);
  }
}
