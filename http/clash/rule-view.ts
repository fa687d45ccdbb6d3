import { RULE_CONDITIONS } from '../../actors/config/schema-route.js';
import type { WeirConfig } from '../../actors/config/schema.js';

type RouteConfig = WeirConfig['route'];
type RuleConfig = RouteConfig['rules'][number];
type ConditionKey = (typeof RULE_CONDITIONS)[number];

/** mihomo's rule type for a rule of one condition key. */
const RULE_TYPE: Record<ConditionKey, string> = {
  domain: 'Domain',
  domain_suffix: 'DomainSuffix',
  domain_keyword: 'DomainKeyword',
  ip_cidr: 'IPCIDR',
  port: 'DstPort',
  network: 'Network',
  inbound: 'InName',
  principal: 'InUser',
};

/** One element of `GET /rules`. */
export interface ClashRule {
  type: string;
  payload: string;
  proxy: string;
  size: number;
  index: number;
}

/**
 * A rule's type and payload: a rule of one key is that key's type with its values
 * joined by commas; a rule of several keys (ANDed) is `AND` with weir's condition text.
 */
export function ruleTypeOf(rule: RuleConfig): { type: string; payload: string } {
  const keys = RULE_CONDITIONS.filter((k) => rule[k] !== undefined);
  const values = (k: ConditionKey): string => (rule[k] as readonly unknown[]).join(',');
  if (keys.length === 1) return { type: RULE_TYPE[keys[0]!], payload: values(keys[0]!) };
  return { type: 'AND', payload: keys.map((k) => `${k}=${values(k)}`).join(' && ') };
}

/** The rules in order, then `final` as mihomo's last rule `Match`. */
export function clashRules(route: RouteConfig): ClashRule[] {
  const rules = route.rules.map((rule, index) => ({ ...ruleTypeOf(rule), proxy: rule.outbound, size: -1, index }));
  return [...rules, { type: 'Match', payload: '', proxy: route.final, size: -1, index: rules.length }];
}
