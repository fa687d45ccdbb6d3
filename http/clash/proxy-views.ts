import type { OutboundConfig } from '../../actors/config/schema.js';
import type { ControlOps } from '../../actors/control/control-ops.js';
import type { DelayHistory, DelayResult } from './delay-history.js';
import { GLOBAL, type GlobalChoice } from './global-choice.js';

/** One element of `GET /proxies` (mihomo's Proxy JSON, the fields dashboards read). */
export interface ClashProxy {
  name: string;
  type: string;
  history: DelayResult[];
  alive: boolean;
  udp: boolean;
  extra: Record<string, never>;
  /** Groups only: the members (a chain's hops, first hop first). */
  all?: string[];
  /** Selectors and url_test groups: the member in use. */
  now?: string;
  testUrl?: string;
}

/** mihomo's adapter type names for weir's outbound types. */
const PROXY_TYPE: Record<OutboundConfig['type'], string> = {
  direct: 'Direct',
  block: 'Reject',
  socks: 'Socks5',
  http: 'Http',
  selector: 'Selector',
  url_test: 'URLTest',
  chain: 'Relay',
};

/** Outbound types that relay UDP associations. */
const UDP_TYPES: ReadonlySet<string> = new Set(['direct', 'socks', 'selector', 'url_test']);

export interface ProxyViews {
  ops: ControlOps;
  history: DelayHistory;
  global: GlobalChoice;
}

function proxyOf(config: OutboundConfig, now: ReadonlyMap<string, string>, history: DelayHistory): ClashProxy {
  const results = history.of(config.tag);
  const proxy: ClashProxy = {
    name: config.tag,
    type: PROXY_TYPE[config.type],
    history: results,
    alive: results.length === 0 || results[results.length - 1]!.delay > 0,
    udp: UDP_TYPES.has(config.type),
    extra: {},
  };
  if (config.type === 'selector' || config.type === 'url_test') {
    proxy.all = [...config.members];
    proxy.now = now.get(config.tag) ?? config.members[0]!;
  }
  // A relay lists its hops and has no `now`, as mihomo's Relay: dashboards show it as a group nobody selects in.
  if (config.type === 'chain') proxy.all = [...config.hops];
  if (config.type === 'url_test') {
    const testUrl = shownTestUrl(config.url);
    if (testUrl !== null) proxy.testUrl = testUrl;
  }
  return proxy;
}

/**
 * A url_test group's URL as dashboards may see it, or null. One with credentials or a
 * query is never shown: either may hold a secret, and weir's redacted form of it would
 * come back from the dashboard as the URL to test.
 */
export function shownTestUrl(url: string): string | null {
  const u = new URL(url);
  return u.username === '' && u.password === '' && u.search === '' ? url : null;
}

/** Every outbound by tag, in config order, and the GLOBAL selector over all of them. */
export function clashProxies({ ops, history, global }: ProxyViews): Record<string, ClashProxy> {
  const outbounds = ops.routing().outbounds;
  const now = new Map(ops.policies().map((p) => [p.tag, p.selected]));
  const proxies: Record<string, ClashProxy> = {};
  for (const config of outbounds) proxies[config.tag] = proxyOf(config, now, history);
  if (global.synthetic()) {
    const all = outbounds.map((o) => o.tag);
    proxies[GLOBAL] = { name: GLOBAL, type: 'Selector', history: [], alive: true, udp: true, extra: {}, all, now: global.now() };
  }
  return proxies;
}
