import type { MatchedRule, RouteMode } from '../../streams/contract.js';
import type { RouteContext, Rule } from '../contracts/rule.js';
import { extend } from '../base/revise.js';
import { ipOfHost } from '../net/ip-of-host.js';
import type { TargetAddresses } from '../net/target-resolver.js';
import { compileRule, type RuleSpec } from './rule-matcher.js';

export interface RouteDecision {
  mode: RouteMode;
  /** The tag the mode, a rule or `final` chose (may be a group). */
  target: string;
  /** The deciding rule; index -1 with condition `global` or `final` when no rule decided. */
  matched_rule: MatchedRule;
}

export interface RouterOptions {
  mode: RouteMode;
  globalTarget?: string;
  rules: readonly RuleSpec[];
  final: string;
  /** route.block_private: the direct outbound refuses private destinations. @defaultValue false */
  blockPrivate?: boolean;
}

/** No lookup: name targets never meet ip_cidr rules (UDP, where the first datagram decides). */
const NO_ADDRESSES: TargetAddresses = () => Promise.resolve([]);

/** Decides a flow's target tag from the mode and the rules. The mode can change at run time. */
export class Router {
  private rules: Rule[] = [];
  private final = '';
  private refusePrivate = false;
  private current: { mode: RouteMode; globalTarget: string | null } = { mode: 'rule', globalTarget: null };

  constructor(opts: RouterOptions) {
    this.reconfigure(opts);
  }

  /** Takes new rules, final and mode (config reload); flows already routed keep their route. */
  reconfigure(opts: RouterOptions): void {
    this.rules = opts.rules.map(compileRule);
    this.final = opts.final;
    this.refusePrivate = opts.blockPrivate ?? false;
    this.current = { mode: opts.mode, globalTarget: opts.globalTarget ?? null };
  }

  get mode(): { mode: RouteMode; global_target: string | null } {
    return { mode: this.current.mode, global_target: this.current.globalTarget };
  }

  /** route.block_private of the config in force. */
  get blockPrivate(): boolean {
    return this.refusePrivate;
  }

  setMode(mode: RouteMode, globalTarget: string | null): void {
    this.current = { mode, globalTarget: mode === 'global' ? globalTarget : null };
  }

  /**
   * The first matching rule's target, else `final`. A name target is resolved when
   * evaluation reaches the first rule that looks at addresses (as mihomo does), once;
   * a name that does not resolve meets those rules with no address, so none matches.
   * The rules and final in force at the call decide, whatever a reload does meanwhile.
   * A decision that needs no lookup is returned as is, not as a promise: most flows'
   * rules never look at addresses, and they pay no promise for it.
   */
  decide(ctx: RouteContext, addresses: TargetAddresses = NO_ADDRESSES): RouteDecision | Promise<RouteDecision> {
    const { mode, globalTarget } = this.current;
    if (mode === 'global' && globalTarget) return { mode, target: globalTarget, matched_rule: { index: -1, condition: 'global' } };
    return firstMatch({ mode, rules: this.rules, final: this.final, addresses }, ctx, 0);
  }
}

/** What one decision walks: the mode, rules and final in force at its call, and the name's lookup. */
interface Walk {
  mode: RouteMode;
  rules: readonly Rule[];
  final: string;
  addresses: TargetAddresses;
}

/** Walks the rules from `from`; it waits only at the first rule that needs the name's addresses, then goes on from that rule. */
function firstMatch(walk: Walk, seen: RouteContext, from: number): RouteDecision | Promise<RouteDecision> {
  const { mode, rules } = walk;
  for (let index = from; index < rules.length; index++) {
    const rule = rules[index]!;
    if (rule.resolves && seen.ip === null && seen.resolved === undefined) {
      return walk
        .addresses()
        .catch((): readonly string[] => [])
        .then((resolved) => firstMatch(walk, extend(seen, { resolved }), index));
    }
    if (rule.match(seen)) return { mode, target: rule.outbound, matched_rule: { index, condition: rule.condition } };
  }
  return { mode, target: walk.final, matched_rule: { index: -1, condition: 'final' } };
}

/**
 * The context the rules see. `ip` is the address the dialer will connect to when the
 * host names one without DNS (ipOfHost), whatever its spelling: `127.1` or
 * `[::ffff:7f00:1]` must meet the ip_cidr rules that 127.0.0.1 meets.
 */
export function routeContext(fields: Omit<RouteContext, 'ip'>): RouteContext {
  return extend(fields, { ip: ipOfHost(fields.host) });
}
