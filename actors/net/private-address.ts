import ipaddr from 'ipaddr.js';

/**
 * The ipaddr.js ranges of addresses in the node's own networks, or that reach no
 * single remote host: what route.block_private refuses. `reserved` holds 240.0.0.0/4
 * and the documentation and benchmarking blocks, none of which a proxy's user has a
 * reason to reach. Everything else (public unicast, 6to4, Teredo, NAT64) is judged as
 * the IPv6 address it is.
 */
const PRIVATE_RANGES = new Set([
  'unspecified',
  'broadcast',
  'multicast',
  'linkLocal',
  'loopback',
  'carrierGradeNat',
  'private',
  'reserved',
  'uniqueLocal',
]);

/**
 * The range name (`loopback`, `private`, `linkLocal`, ..., or `malformed`) when `ip`
 * is an address route.block_private refuses, else null. An IPv4-mapped IPv6 address is judged as the
 * IPv4 address it carries, which is where a dual-stack connect goes.
 */
export function privateRange(ip: string): string | null {
  // Node and ipaddr.js may disagree on an exotic spelling: what cannot be judged is refused, never thrown.
  if (!ipaddr.isValid(ip)) return 'malformed';
  const range = ipaddr.process(ip).range();
  return PRIVATE_RANGES.has(range) ? range : null;
}
