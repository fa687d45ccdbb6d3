import type { ConfigCheck, ConfigSource, Overlay } from '../config/config-source.js';
import { HOT_SECTIONS } from '../config/config-source.js';
import { formatProblem, type ConfigProblem } from '../config/problems.js';
import type { WeirConfig } from '../config/schema.js';
import { ControlError } from './control-error.js';

/** Keys a config.apply body may carry: whole hot sections, or sink edits by tag. */
const EDITS = ['upsert_sinks', 'remove_sinks'] as const;

/**
 * Turns a config.apply body into validated sections, all or nothing. `event_sinks`,
 * `route` and `log` replace their section; `upsert_sinks` adds or replaces sinks by
 * tag and `remove_sinks` removes tags, so a controller can register its Webhook
 * without knowing the node's other sinks. Repeating a body changes nothing more.
 */
export function applyBody(source: ConfigSource, body: unknown, check?: ConfigCheck): WeirConfig {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ControlError('INVALID_BODY', 'config.apply takes a JSON object');
  }
  const doc = body as Record<string, unknown>;
  const allowed = new Set<string>([...HOT_SECTIONS, ...EDITS]);
  const refused = Object.keys(doc).filter((k) => !allowed.has(k));
  if (refused.length > 0) {
    throw new ControlError(
      'INVALID_BODY',
      `not hot-reloadable: ${refused.join(', ')} (config.apply takes ${[...allowed].join(', ')}; other sections need a restart)`,
    );
  }
  const sections: Overlay = {};
  for (const s of HOT_SECTIONS) if (s in doc) sections[s] = doc[s];
  const edited = 'upsert_sinks' in doc || 'remove_sinks' in doc ? editSinks(source, sections.event_sinks, doc) : null;
  if (edited) sections.event_sinks = edited.sinks;
  const result = source.apply(sections, check);
  if (!result.ok) throw configInvalid(edited ? result.problems.map((p) => inUpserts(p, edited.kept)) : result.problems);
  return result.config;
}

/**
 * A problem of the merged sink list named where the body has it: the upserts follow
 * the `kept` sinks, so `event_sinks[kept + i]` is the body's `upsert_sinks[i]`.
 */
function inUpserts(problem: ConfigProblem, kept: number): ConfigProblem {
  const at = /^event_sinks\[(\d+)\]/.exec(problem.path);
  if (!at || Number(at[1]) < kept) return problem;
  return { ...problem, path: `upsert_sinks[${Number(at[1]) - kept}]${problem.path.slice(at[0].length)}` };
}

/** The one CONFIG_INVALID error for config.apply and reload: the problems joined, and listed in details. */
export function configInvalid(problems: ConfigProblem[]): ControlError {
  return new ControlError('CONFIG_INVALID', problems.map(formatProblem).join('; '), { problems });
}

/** The sink list the edits make: the sinks kept, then the upserts. */
function editSinks(source: ConfigSource, replaced: unknown, doc: Record<string, unknown>): { sinks: unknown[]; kept: number } {
  const base = replaced ?? source.rawSection('event_sinks') ?? [];
  if (!Array.isArray(base)) throw new ControlError('INVALID_BODY', 'event_sinks must be an array');
  const upserts = doc['upsert_sinks'] ?? [];
  const removals = doc['remove_sinks'] ?? [];
  if (!Array.isArray(upserts) || !Array.isArray(removals)) {
    throw new ControlError('INVALID_BODY', 'upsert_sinks must be an array of sinks and remove_sinks an array of tags');
  }
  const tagOf = (s: unknown): unknown => (typeof s === 'object' && s !== null ? (s as { tag?: unknown }).tag : undefined);
  const dropped = new Set<unknown>([...removals, ...upserts.map(tagOf)]);
  const kept = base.filter((s) => !dropped.has(tagOf(s)));
  return { sinks: [...kept, ...upserts], kept: kept.length };
}
