import { createHash } from 'node:crypto';
import { HOT_SECTIONS } from './applied-overlay.js';
import type { WeirConfig } from './schema.js';
import { Secret } from './secret.js';

/**
 * A config value's JSON with each secret written as its SHA-256: a changed token or key
 * shows as a change while its value shows nowhere. (A Secret alone serializes as
 * "[redacted]"; the replacer sees the holder's own value before toJSON's result.)
 */
export function fingerprint(value: unknown): string {
  return (
    JSON.stringify(value, function (this: Record<string, unknown>, key: string, json: unknown) {
      const own = this[key];
      return own instanceof Secret ? `sha256:${createHash('sha256').update(own.reveal()).digest('hex')}` : json;
    }) ?? ''
  );
}

const HOT = new Set<string>(HOT_SECTIONS);

/**
 * What a reloaded config changes that only a restart applies: the sections that are not
 * hot, by name, and `log.file` (the log level is hot, the open log file is not). The node
 * keeps running on its old values of these until it restarts.
 */
export function restartRequired(running: WeirConfig, next: WeirConfig): string[] {
  const sections = [...new Set([...Object.keys(next), ...Object.keys(running)])] as (keyof WeirConfig)[];
  const changed: string[] = sections.filter((s) => s !== '$schema' && !HOT.has(s) && fingerprint(running[s]) !== fingerprint(next[s]));
  if (running.log.file !== next.log.file) changed.push('log.file');
  return changed;
}

/**
 * The hot sections `next` changes, by name, `log` as `log.level` and `log.access`: what
 * a reload's log line says it changed.
 */
export function hotChanges(running: WeirConfig, next: WeirConfig): string[] {
  const changed: string[] = HOT_SECTIONS.filter((s) => s !== 'log' && fingerprint(running[s]) !== fingerprint(next[s]));
  for (const key of ['level', 'access'] as const) if (running.log[key] !== next.log[key]) changed.push(`log.${key}`);
  return changed;
}

/**
 * The config a running node is on after an apply or reload of `next`: its hot sections
 * (the log level of `log`), the rest as the node started (restartRequired names what differs).
 */
export function withHotSections(running: WeirConfig, next: WeirConfig): WeirConfig {
  const hot = Object.fromEntries(HOT_SECTIONS.map((s) => [s, next[s]])) as Pick<WeirConfig, (typeof HOT_SECTIONS)[number]>;
  return { ...running, ...hot, log: { ...next.log, file: running.log.file } };
}
