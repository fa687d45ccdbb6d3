import type { Network } from '../../streams/contract.js';

/** What a routing rule may look at; derived from the flow, never stored beside it. */
export interface RouteContext {
  host: string;
  /** The target host when it is an IP literal. */
  ip: string | null;
  /** A name target's addresses, once a rule that resolves was reached (empty when the name did not resolve). */
  resolved?: readonly string[];
  port: number;
  network: Network;
  inbound: string;
  principal: string | null;
  sniffed_host?: string;
}

export interface Rule {
  /** A readable form of the rule's conditions, reported as matched_rule.condition. */
  readonly condition: string;
  readonly outbound: string;
  /** Whether the rule looks at a name target's addresses: the router resolves the name before asking it. */
  readonly resolves: boolean;
  match(ctx: RouteContext): boolean;
}
