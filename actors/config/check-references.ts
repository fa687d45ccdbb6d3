import { findCycles } from './check-cycles.js';
import type { ConfigProblem } from './problems.js';
import type { PartView, ReferenceView, TagRef } from './reference-view.js';
import { HOP_TYPES } from './schema-outbounds.js';

function duplicateTags(parts: readonly PartView[]): ConfigProblem[] {
  const first = new Map<string, PartView>();
  return parts.flatMap((part) => {
    const earlier = first.get(part.tag);
    if (earlier === undefined) {
      first.set(part.tag, part);
      return [];
    }
    return [{ path: `${part.path}.tag`, message: `duplicate tag "${part.tag}" (first used at ${earlier.path})` }];
  });
}

function unknownTags(refs: readonly TagRef[], parts: readonly PartView[], what: string): ConfigProblem[] {
  const known = new Set(parts.map((p) => p.tag));
  return refs.filter((r) => !known.has(r.tag)).map((r) => ({ path: r.path, message: `unknown ${what} "${r.tag}"` }));
}

function nonProxyHops(outbounds: readonly PartView[]): ConfigProblem[] {
  const typeOf = new Map<string, string | undefined>();
  for (const o of outbounds) if (!typeOf.has(o.tag)) typeOf.set(o.tag, o.type);
  return outbounds
    .filter((o) => o.type === 'chain')
    .flatMap((chain) => chain.refs)
    .flatMap((hop) => {
      const type = typeOf.get(hop.tag);
      if (type === undefined || HOP_TYPES.includes(type)) return [];
      return [{ path: hop.path, message: `"${hop.tag}" is a ${type} outbound; chain hops must be socks or http outbounds` }];
    });
}

/** Problems between parts: duplicate tags, dangling references, bad chain hops, cycles. */
export function checkReferences(view: ReferenceView): ConfigProblem[] {
  const groupRefs = view.outbounds.flatMap((o) => o.refs);
  return [
    ...duplicateTags(view.inbounds),
    ...duplicateTags(view.outbounds),
    ...duplicateTags(view.sinks),
    ...unknownTags([...groupRefs, ...view.routeOutbounds], view.outbounds, 'tag'),
    ...unknownTags(view.routeInbounds, view.inbounds, 'inbound tag'),
    ...nonProxyHops(view.outbounds),
    ...findCycles(view.outbounds),
  ];
}
