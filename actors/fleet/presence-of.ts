import os from 'node:os';
import type { ControlOps } from '../control/control-ops.js';
import type { PresenceRecord } from './presence-record.js';

/** The record a running node writes of itself, built from its control operations; `flows_opened` counts since the previous call. */
export function presenceOf(ops: ControlOps, control: string | null): () => Promise<PresenceRecord> {
  let lastStarted = ops.stats().total_started;
  let lastAt = Date.now();
  return async () => {
    const sinks = await ops.freshSinks();
    const runtime = ops.runtime();
    const stats = ops.stats();
    const now = Date.now();
    const record: PresenceRecord = {
      node_id: String(runtime['node_id']),
      version: String(runtime['version']),
      build: (runtime['build'] as { binary_sha256: string }).binary_sha256.slice(0, 12),
      host: os.hostname(),
      pid: process.pid,
      started_at_unix_ms: Number(runtime['started_at_unix_ms']),
      updated_at_unix_ms: now,
      control,
      mode: (runtime['mode'] as { mode: string }).mode,
      active_flows: stats.active_sessions,
      flows_opened: stats.total_started - lastStarted,
      interval_ms: now - lastAt,
      bytes_up: stats.bytes_up,
      bytes_down: stats.bytes_down,
      sinks: sinks.map((s) => ({
        tag: s.tag,
        type: s.type,
        pending: s.pending,
        oldest_pending_age_ms: s.oldest_pending_age_ms ?? null,
        total_delivered: s.total_delivered,
        dead_letters: s.dead_letters ?? 0,
      })),
    };
    lastStarted = stats.total_started;
    lastAt = now;
    return record;
  };
}
