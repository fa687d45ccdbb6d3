import * as assert from 'uvu/assert';

/** The fields of a statistics snapshot (stats.sampled, the stats query, GET /api/v1/stats), sorted. */
export const STATS_KEYS = [
  'active_sessions',
  'blocked_sessions',
  'bytes_down',
  'bytes_up',
  'chained_sessions',
  'completed_sessions',
  'direct_sessions',
  'failed_sessions',
  'total_started',
  'udp_upstream',
];

/** The counters of its `udp_upstream`, sorted. */
export const UDP_STATS_KEYS = [
  'active_associations',
  'closed_associations',
  'created_associations',
  'dropped_associations',
  'failed_association_attempts',
  'idle_timeouts',
  'packets_received',
  'packets_sent',
  'recv_failures',
  'reused_associations',
  'send_failures',
];

/** A statistics snapshot has every field and nothing else, each counter a non-negative integer. */
export function assertStatsFields(stats: Record<string, unknown>): void {
  assert.equal(Object.keys(stats).sort(), STATS_KEYS, 'statistics fields');
  const udp = stats['udp_upstream'] as Record<string, unknown>;
  assert.equal(Object.keys(udp).sort(), UDP_STATS_KEYS, 'udp_upstream counters');
  const counters = [...STATS_KEYS.filter((k) => k !== 'udp_upstream').map((k) => stats[k]), ...Object.values(udp)];
  for (const n of counters) assert.ok(Number.isInteger(n) && (n as number) >= 0, `a non-negative integer: ${String(n)}`);
}
