import { HOT_SECTIONS, type ApplyRequest, type SinkEdits } from '../config/applied-overlay.js';
import type { ConfigCheck, ConfigSource } from '../config/config-source.js';
import { formatProblem, type ConfigProblem } from '../config/problems.js';
import type { WeirConfig } from '../config/schema.js';
import { ControlError } from './control-error.js';

/** Keys a config.apply body may carry: whole hot sections, or sink edits by tag. */
const EDITS = ['upsert_sinks', 'remove_sinks'] as const;

/**
 * Turns a config.apply body into validated sections, all or nothing. `event_sinks`,
 * `route` and `log` replace their section (of `log`, what it names); `upsert_sinks`
 * adds or replaces sinks by tag and `remove_sinks` removes tags, so a controller can
 * register its Webhook without knowing the node's other sinks, and the file's own
 * sinks still follow the file. Repeating a body changes nothing more.
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
  const sections: ApplyRequest['sections'] = {};
  for (const s of HOT_SECTIONS) if (s in doc) sections[s] = doc[s];
  const request: ApplyRequest = 'upsert_sinks' in doc || 'remove_sinks' in doc ? { sections, edits: sinkEdits(doc) } : { sections };
  const result = source.apply(request, check);
  if (!result.ok) throw configInvalid(result.problems);
  return result.config;
}

/** The one CONFIG_INVALID error for config.apply and reload: the problems joined, and listed in details. */
export function configInvalid(problems: ConfigProblem[]): ControlError {
  return new ControlError('CONFIG_INVALID', problems.map(formatProblem).join('; '), { problems });
}

function sinkEdits(doc: Record<string, unknown>): SinkEdits {
  const upsert = doc['upsert_sinks'] ?? [];
  const remove = doc['remove_sinks'] ?? [];
  if (!Array.isArray(upsert) || !Array.isArray(remove) || !remove.every((t) => typeof t === 'string')) {
    throw new ControlError('INVALID_BODY', 'upsert_sinks must be an array of sinks and remove_sinks an array of tags');
  }
  const repeated = repeatedTags(upsert);
  if (repeated.length > 0) throw configInvalid(repeated);
  return { upsert, remove };
}

/**
 * A tag upserted twice in one request, named where the request has it: merged into the
 * node's sink list first, the problem named the first upsert and a list the request
 * does not have.
 */
function repeatedTags(upsert: unknown[]): ConfigProblem[] {
  const tags = upsert.map((s) => (typeof s === 'object' && s !== null ? (s as { tag?: unknown }).tag : undefined));
  return tags.flatMap((tag, i) => {
    const first = typeof tag === 'string' ? tags.indexOf(tag) : i;
    return first < i ? [{ path: `upsert_sinks[${i}].tag`, message: `duplicate tag "${String(tag)}" (first used at upsert_sinks[${first}])` }] : [];
  });
}
