import { BlockList, isIP } from 'node:net';
import type { Network } from '../../streams/contract.js';
import type { RouteContext, Rule } from '../contracts/rule.js';
import { domainOf } from '../net/host-name.js';
import { ipOfHost } from '../net/ip-of-host.js';

/** The conditions of one routing rule, as the config gives them. */
export interface RuleSpec {
  domain?: readonly string[];
  domain_suffix?: readonly string[];
  domain_keyword?: readonly string[];
  ip_cidr?: readonly string[];
  /** ip_cidr looks at IP literal targets only: a name target is not resolved for it. */
  no_resolve?: boolean | undefined;
  port?: readonly (number | string)[];
  network?: readonly Network[];
  inbound?: readonly string[];
  principal?: readonly string[];
  outbound: string;
}

type Check = (ctx: RouteContext) => boolean;

/**
 * Compiles a rule: fields are ANDed, the values of one field ORed. Domain
 * conditions look at the target host and, for a client that connected by IP, at the
 * sniffed host too, both as domainOf gives them. ip_cidr looks at the context's `ip`
 * (a literal target) or, unless the rule says no_resolve, at the name's `resolved`
 * addresses: any one of them in a block matches (a name that also has a public
 * address is still blocked by a block rule on its private one).
 */
export function compileRule(spec: RuleSpec): Rule {
  const checks: Check[] = [];
  const parts: string[] = [];
  const add = (name: string, values: readonly unknown[] | undefined, check: Check): void => {
    if (!values || values.length === 0) return;
    checks.push(check);
    parts.push(`${name}=${values.join(',')}`);
  };
  const hosts = (ctx: RouteContext): string[] =>
    ctx.sniffed_host ? [domainOf(ctx.host), domainOf(ctx.sniffed_host)] : [domainOf(ctx.host)];

  const exact = new Set(spec.domain?.map(domainOf));
  add('domain', spec.domain, (ctx) => hosts(ctx).some((h) => exact.has(h)));
  const suffixes = spec.domain_suffix?.map((s) => domainOf(s).replace(/^\./, '')) ?? [];
  add('domain_suffix', spec.domain_suffix, (ctx) =>
    hosts(ctx).some((h) => suffixes.some((s) => h === s || h.endsWith(`.${s}`))),
  );
  const keywords = spec.domain_keyword?.map((k) => k.toLowerCase()) ?? [];
  add('domain_keyword', spec.domain_keyword, (ctx) => hosts(ctx).some((h) => keywords.some((k) => h.includes(k))));
  const inCidrs = cidrMatcher(spec.ip_cidr ?? []);
  const resolves = spec.ip_cidr !== undefined && spec.no_resolve !== true;
  add('ip_cidr', spec.ip_cidr, (ctx) => (ctx.ip !== null ? inCidrs(ctx.ip) : resolves && ctx.resolved !== undefined && ctx.resolved.some(inCidrs)));
  const ports = spec.port?.map(portRange) ?? [];
  add('port', spec.port, (ctx) => ports.some(([lo, hi]) => ctx.port >= lo && ctx.port <= hi));
  const networks = new Set(spec.network);
  add('network', spec.network, (ctx) => networks.has(ctx.network));
  const inbounds = new Set(spec.inbound);
  add('inbound', spec.inbound, (ctx) => inbounds.has(ctx.inbound));
  const principals = new Set(spec.principal);
  add('principal', spec.principal, (ctx) => ctx.principal !== null && principals.has(ctx.principal));

  return {
    condition: parts.join(' && '),
    outbound: spec.outbound,
    resolves,
    match: (ctx) => checks.every((check) => check(ctx)),
  };
}

/**
 * One list per family: a single BlockList treats IPv4 as IPv4-mapped IPv6, so
 * `::/0` would match every IPv4 target. The target's `ip` comes from ipOfHost, which
 * writes an IPv4-mapped address as its IPv4 address; so a mapped block in the config
 * (`::ffff:10.0.0.0/104`) is listed as the IPv4 block it carries, or no target would
 * ever be in it.
 */
function cidrMatcher(entries: readonly string[]): (ip: string) => boolean {
  const v4 = new BlockList();
  const v6 = new BlockList();
  for (const entry of entries) {
    const [addr = '', bits] = entry.split('/');
    const prefix = bits === undefined ? undefined : Number(bits);
    const family = isIP(addr);
    const carried = family === 6 ? ipOfHost(addr) : null;
    if (carried !== null && isIP(carried) === 4 && (prefix === undefined || prefix >= 96)) {
      addBlock(v4, 'ipv4', carried, prefix === undefined ? undefined : prefix - 96);
    } else if (family === 6) addBlock(v6, 'ipv6', addr, prefix);
    else addBlock(v4, 'ipv4', addr, prefix);
  }
  return (ip) => (isIP(ip) === 6 ? v6.check(ip, 'ipv6') : v4.check(ip, 'ipv4'));
}

function addBlock(list: BlockList, family: 'ipv4' | 'ipv6', addr: string, prefix: number | undefined): void {
  if (prefix === undefined) list.addAddress(addr, family);
  else list.addSubnet(addr, prefix, family);
}

function portRange(p: number | string): [number, number] {
  if (typeof p === 'number') return [p, p];
  const [lo = '0', hi = lo] = p.split('-');
  return [Number(lo), Number(hi)];
}
