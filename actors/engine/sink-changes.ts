import { fingerprint } from '../config/config-diff.js';
import type { SinkConfig } from '../config/schema.js';
import { shownUrl } from '../net/shown-url.js';

export interface SinkChanges {
  added: SinkConfig[];
  replaced: SinkConfig[];
  removed: string[];
}

/**
 * Which sinks a new `event_sinks` list adds, replaces or removes, by tag. A token
 * change counts as a change: the fingerprint holds its digest.
 */
export function sinkChanges(current: readonly SinkConfig[], next: readonly SinkConfig[]): SinkChanges {
  const before = new Map(current.map((c) => [c.tag, fingerprint(c)]));
  const after = new Set(next.map((c) => c.tag));
  return {
    added: next.filter((c) => !before.has(c.tag)),
    replaced: next.filter((c) => before.has(c.tag) && before.get(c.tag) !== fingerprint(c)),
    removed: current.filter((c) => !after.has(c.tag)).map((c) => c.tag),
  };
}

/**
 * The changes as an apply's or reload's answer (and its log line) shows them: a Webhook
 * sink's URL by shownUrl. Its token is a Secret and shows as [redacted] by itself.
 */
export function shownChanges(changes: SinkChanges): SinkChanges {
  return { ...changes, added: changes.added.map(shownSink), replaced: changes.replaced.map(shownSink) };
}

function shownSink(c: SinkConfig): SinkConfig {
  return c.type === 'webhook' ? { ...c, url: shownUrl(c.url) } : c;
}
