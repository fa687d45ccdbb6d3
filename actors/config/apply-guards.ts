import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { ApplyRequest } from './applied-overlay.js';
import { inside } from './check-sink-paths.js';
import type { ConfigProblem } from './problems.js';

/** Where the node's files are, to tell where a requested sink may write. */
export interface ApplyPlaces {
  /** Relative paths in the config resolve against it. */
  baseDir: string;
  stateDir: string;
}

type RawSink = Record<string, unknown>;

const isObject = (value: unknown): value is RawSink => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * What a config.apply request may not bring that the config file may: the API key
 * alone must not open the node's environment and files to its holder. A secret given
 * as `{ env }` or `{ file }` would be read by the node (and whether it exists told in
 * the refusal); a JSONL path outside the state_dir, or a log file (taken at the next
 * start), would be appended to wherever the node's user can write; an IPC hook path
 * would have the node connect to whatever Unix socket the request names and send it
 * every new flow (its client, target, user), taking its answers as routing. What the
 * node runs already (`running`, the merged document) may be sent back: a sink of the
 * same tag keeps its own, the hook its path, so a controller can return what it was
 * given.
 */
export function applyGuards(request: ApplyRequest, running: Record<string, unknown>, places: ApplyPlaces): ConfigProblem[] {
  const current = Array.isArray(running['event_sinks']) ? running['event_sinks'] : [];
  const byTag = new Map(current.filter(isObject).map((s) => [s['tag'], s]));
  const listed = Array.isArray(request.sections.event_sinks) ? request.sections.event_sinks : [];
  const sinks = [
    ...listed.map((sink, i) => ({ sink, at: `event_sinks[${i}]` })),
    ...(request.edits?.upsert ?? []).map((sink, i) => ({ sink, at: `upsert_sinks[${i}]` })),
  ];
  const problems = sinks.flatMap(({ sink, at }) => (isObject(sink) ? sinkProblems(sink, at, byTag.get(sink['tag']), places) : []));
  const kept = (section: 'log' | 'ipc_hook', field: string): boolean => {
    const requested = request.sections[section];
    return !isObject(requested) || requested[field] === undefined || samePath(places.baseDir, requested[field], fieldOf(running[section], field));
  };
  if (!kept('log', 'file')) problems.push({ path: 'log.file', message: 'config.apply sets the log level; the log file is set in the config file' });
  if (!kept('ipc_hook', 'path')) {
    problems.push({ path: 'ipc_hook.path', message: 'config.apply sets the IPC hook\'s timeout and keeps its socket path; the path is set in the config file' });
  }
  return problems;
}

const fieldOf = (section: unknown, field: string): unknown => (isObject(section) ? section[field] : undefined);

/** Whether two config paths name the same file, as the node resolves them. */
function samePath(baseDir: string, a: unknown, b: unknown): boolean {
  return typeof a === 'string' && typeof b === 'string' && path.resolve(baseDir, a) === path.resolve(baseDir, b);
}

function sinkProblems(sink: RawSink, at: string, before: RawSink | undefined, places: ApplyPlaces): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const token = sink['token'];
  if (isObject(token) && !isDeepStrictEqual(token, before?.['token'])) {
    problems.push({ path: `${at}.token`, message: 'config.apply takes a secret inline: { env } and { file } name the node\'s own environment and files (set those in the config file)' });
  }
  const file = sink['path'];
  if (sink['type'] === 'jsonl' && typeof file === 'string') {
    const kept = samePath(places.baseDir, file, before?.['path']);
    if (!kept && !inside(places.stateDir, path.resolve(places.baseDir, file))) {
      problems.push({ path: `${at}.path`, message: `config.apply writes a JSONL sink inside node.state_dir (${places.stateDir}) only; other paths go in the config file` });
    }
  }
  return problems;
}
