// The tags and tag references of a config document, read leniently from the raw input
// so that reference problems are reported even when the schema found other problems.

/** A place that names a tag. */
export interface TagRef {
  path: string;
  tag: string;
}

/** An inbound, outbound or sink that defines a tag. */
export interface PartView {
  /** JSON path of the part, e.g. `outbounds[3]`. */
  path: string;
  tag: string;
  type: string | undefined;
  /** Tags this part refers to: a chain's hops, a group's members. */
  refs: TagRef[];
}

export interface ReferenceView {
  inbounds: PartView[];
  outbounds: PartView[];
  sinks: PartView[];
  /** Route references to outbounds: rule outbounds, final, global_target. */
  routeOutbounds: TagRef[];
  /** Route references to inbounds: the rules' `inbound` lists. */
  routeInbounds: TagRef[];
}

type Fields = Record<string, unknown>;

function isFields(v: unknown): v is Fields {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function list(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function tagAt(v: unknown, path: string): TagRef[] {
  return typeof v === 'string' ? [{ path, tag: v }] : [];
}

function tagsAt(v: unknown, path: string): TagRef[] {
  return list(v).flatMap((t, i) => tagAt(t, `${path}[${i}]`));
}

const REF_FIELDS: Record<string, string> = { chain: 'hops', selector: 'members', url_test: 'members' };

function parts(v: unknown, name: string): PartView[] {
  return list(v).flatMap((part, i) => {
    if (!isFields(part) || typeof part.tag !== 'string') return [];
    const path = `${name}[${i}]`;
    const type = typeof part.type === 'string' ? part.type : undefined;
    const refField = type === undefined ? undefined : REF_FIELDS[type];
    const refs = refField === undefined ? [] : tagsAt(part[refField], `${path}.${refField}`);
    return [{ path, tag: part.tag, type, refs }];
  });
}

export function readReferences(raw: unknown): ReferenceView {
  const doc = isFields(raw) ? raw : {};
  const route = isFields(doc.route) ? doc.route : {};
  const rules = list(route.rules).map((rule, i) => ({ rule: isFields(rule) ? rule : {}, path: `route.rules[${i}]` }));
  return {
    inbounds: parts(doc.inbounds, 'inbounds'),
    outbounds: parts(doc.outbounds, 'outbounds'),
    sinks: parts(doc.event_sinks, 'event_sinks'),
    routeOutbounds: [
      ...rules.flatMap(({ rule, path }) => tagAt(rule.outbound, `${path}.outbound`)),
      ...tagAt(route.final, 'route.final'),
      ...tagAt(route.global_target, 'route.global_target'),
    ],
    routeInbounds: rules.flatMap(({ rule, path }) => tagsAt(rule.inbound, `${path}.inbound`)),
  };
}
