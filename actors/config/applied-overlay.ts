import type { ConfigProblem } from './problems.js';

/**
 * Sections config.apply and reload may change while the node runs (of `log`, the level:
 * a new log file waits for a restart). The IPC hook is read per flow, so it is hot too.
 */
export const HOT_SECTIONS = ['event_sinks', 'route', 'log', 'ipc_hook'] as const;
export type HotSection = (typeof HOT_SECTIONS)[number];

/** Sinks a controller added or replaced (by tag) and removed, over whatever list the file has. */
export interface SinkEdits {
  upsert: unknown[];
  remove: string[];
}

/**
 * What config.apply changed, kept across restarts: whole sections, which stand in for
 * the file's, and sink edits, which apply to the file's sinks (or to an applied list).
 * Kept as edits, a controller's registered sink does not freeze the file's other sinks:
 * the operator's edits to them still take effect on reload.
 */
export type Overlay = Partial<Record<HotSection, unknown>> & { sink_edits?: SinkEdits };

/** Where each sink of the merged list comes from. */
export type SinkOrigin = 'listed' | { upsert: number };

export interface Merged {
  doc: Record<string, unknown>;
  sinkOrigins: SinkOrigin[];
}

const tagOf = (s: unknown): unknown => (typeof s === 'object' && s !== null ? (s as { tag?: unknown }).tag : undefined);

/**
 * The document a node runs on: the file's, with the applied sections over it. `log` is
 * merged over the file's (config.apply sets its level; its file stays the file's), an
 * applied `ipc_hook` takes the file's socket path (config.apply sets its timeout: a
 * path it sent back must not hold the hook where the file no longer has it), and the
 * sink edits go over the resulting sink list.
 */
export function mergeOverlay(file: Record<string, unknown>, overlay: Overlay): Merged {
  const { sink_edits: edits, ...sections } = overlay;
  const doc: Record<string, unknown> = { ...file, ...sections };
  if (isObject(file['log']) && isObject(sections.log)) doc['log'] = { ...file['log'], ...sections.log };
  const hook = file['ipc_hook'];
  if (isObject(hook) && isObject(sections.ipc_hook)) doc['ipc_hook'] = { ...sections.ipc_hook, path: hook['path'] };
  const listed = doc['event_sinks'] ?? [];
  // A list that is no list is left for the schema to name.
  if (!Array.isArray(listed)) return { doc, sinkOrigins: [] };
  if (!edits) return { doc, sinkOrigins: listed.map(() => 'listed') };
  const dropped = new Set<unknown>([...edits.remove, ...edits.upsert.map(tagOf)]);
  const kept = listed.filter((s) => !dropped.has(tagOf(s)));
  doc['event_sinks'] = [...kept, ...edits.upsert];
  return { doc, sinkOrigins: [...kept.map((): SinkOrigin => 'listed'), ...edits.upsert.map((_, i) => ({ upsert: i }))] };
}

/**
 * The overlay after a config.apply of `sections` and `edits`: a whole `event_sinks`
 * replaces the sink edits made before it; an upsert replaces an earlier upsert or
 * removal of its tag, a removal an earlier upsert.
 */
export function withApplied(overlay: Overlay, sections: Partial<Record<HotSection, unknown>>, edits?: SinkEdits): Overlay {
  const next: Overlay = { ...overlay, ...sections };
  if ('event_sinks' in sections) delete next.sink_edits;
  if (!edits) return next;
  const before = next.sink_edits ?? { upsert: [], remove: [] };
  const touched = new Set<unknown>([...edits.remove, ...edits.upsert.map(tagOf)]);
  next.sink_edits = {
    upsert: [...before.upsert.filter((s) => !touched.has(tagOf(s))), ...edits.upsert],
    remove: [...before.remove.filter((t) => !touched.has(t)), ...edits.remove],
  };
  return next;
}

/** What one config.apply asked for: whole sections, and sink edits. */
export interface ApplyRequest {
  sections: Partial<Record<HotSection, unknown>>;
  edits?: SinkEdits;
}

/**
 * A problem of the merged document named where it comes from: the request (an upserted
 * sink as `upsert_sinks[i]`), the overlay file (a section or sink applied before), or
 * the config file.
 */
export function locate(problem: ConfigProblem, overlay: Overlay, merged: Merged, overlayFile: string, request?: ApplyRequest): ConfigProblem {
  const sink = /^event_sinks\[(\d+)\]/.exec(problem.path);
  const origin = sink ? merged.sinkOrigins[Number(sink[1])] : undefined;
  if (sink && origin !== undefined && origin !== 'listed') {
    const tag = tagOf(overlay.sink_edits?.upsert[origin.upsert]);
    const index = request?.edits ? request.edits.upsert.findIndex((s) => tagOf(s) === tag) : -1;
    if (index >= 0) return { ...problem, path: `upsert_sinks[${index}]${problem.path.slice(sink[0].length)}` };
    return fromOverlay(problem, overlayFile);
  }
  const section = /^[a-z_]+/.exec(problem.path)?.[0];
  if (section === undefined || !(HOT_SECTIONS as readonly string[]).includes(section)) return problem;
  return section in overlay && !(request && section in request.sections) ? fromOverlay(problem, overlayFile) : problem;
}

function fromOverlay(problem: ConfigProblem, overlayFile: string): ConfigProblem {
  return { ...problem, message: `${problem.message} (set by config.apply, kept in ${overlayFile})` };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
