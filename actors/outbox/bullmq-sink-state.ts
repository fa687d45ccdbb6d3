import type { Queue } from 'bullmq';
import type { RedisClient } from '../redis/redis-client.js';
import type { OutboxState, ReplayGap, WriteBlockReason } from '../contracts/outbox.js';
import { JOB_ID_PREFIX, type SinkKeys } from './bullmq-keys.js';
import { outboxState, type OutboxCounts } from './outbox-state.js';

/** The BullMQ states an unacknowledged, not dead-lettered job can be in. */
const PENDING_STATES = ['wait', 'active', 'delayed', 'prioritized', 'waiting-children'] as const;

/**
 * The oldest pending job's append time and the lowest sequence pending ('' if unread),
 * from job ids alone (they end with the first event's sequence; ARGV[2] is their prefix).
 * Members whose job is dead or gone (a crash, a failed append) are dropped on the way,
 * except at or above ARGV[3], the lowest sequence of an append under way: it writes
 * members before their jobs, and dropped they would be missing from a loss's gap.
 */
const OLDEST_PENDING = `
local function sequenceOf(id)
  if string.sub(id, 1, #ARGV[2]) ~= ARGV[2] then return nil end
  return tonumber(string.match(id, '%-(%d+)$') or '')
end
local at = 0
while true do
  local top = redis.call('ZRANGE', KEYS[1], at, at, 'WITHSCORES')
  if #top == 0 then return false end
  local job = ARGV[1] .. top[1]
  local exists = redis.call('EXISTS', job) == 1
  if exists and redis.call('HEXISTS', job, 'finishedOn') == 0 then
    local lowest = nil
    for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], top[2], top[2])) do
      local sequence = sequenceOf(id)
      if sequence ~= nil and (lowest == nil or sequence < lowest) then lowest = sequence end
    end
    if lowest == nil then return {top[2], ''} end
    return {top[2], string.format('%d', lowest)}
  end
  if exists or (sequenceOf(top[1]) or 0) < tonumber(ARGV[3]) then
    redis.call('ZREM', KEYS[1], top[1])
  else
    at = at + 1
  end
end`;

/** Jobs pending and dead-lettered, as BullMQ counts them. */
export async function countJobs(queue: Queue): Promise<{ pending: number; dead_letters: number }> {
  const counts = await queue.getJobCounts(...PENDING_STATES, 'failed');
  const pending = PENDING_STATES.reduce((sum, s) => sum + (counts[s] ?? 0), 0);
  return { pending, dead_letters: counts['failed'] ?? 0 };
}

/** One read of a sink in Redis: its state, the id of the store that made it, the oldest pending job's sequence. */
export interface SinkRead {
  state: OutboxState;
  storeId: string | null;
  oldestSequence: number | null;
}

/** Two commands for an idle sink, a script more when something is pending. `appendsFrom`: RedisLossWatch.mark. */
export async function readBullmqSink(redis: RedisClient, keys: SinkKeys, blocked: WriteBlockReason | null, appendsFrom: number): Promise<SinkRead> {
  const [h, gaps] = await Promise.all([redis.hgetall(keys.state), redis.lrange(keys.gaps, 0, -1)]);
  const n = (field: string): number => Math.max(0, Number(h[field] ?? 0));
  const top = n('pending') > 0 ? ((await redis.eval(OLDEST_PENDING, 1, keys.enqueued, keys.base, JOB_ID_PREFIX, appendsFrom)) as [string, string] | null) : null;
  const counts: OutboxCounts = {
    pending: n('pending'),
    dead_letters: n('dead_letters'),
    bytes: n('bytes'),
    total_delivered: n('total_delivered'),
    total_failed: n('total_failed'),
    replay_gaps: n('replay_gaps'),
    last_error: h['last_error'] ? (JSON.parse(h['last_error']) as OutboxState['last_error']) : null,
  };
  const state = outboxState('redis', counts, top ? Number(top[0]) : null, gaps.map((g) => JSON.parse(g) as ReplayGap), blocked, Date.now());
  // store_id is set by the outbox that made the hash (redis-loss-watch.ts): its absence tells Redis lost it.
  return { state, storeId: h['store_id'] ?? null, oldestSequence: top && top[1] !== '' ? Number(top[1]) : null };
}
