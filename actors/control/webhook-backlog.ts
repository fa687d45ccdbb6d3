import { firstUrl, redisAddressOf, type RedisAddress } from '../redis/redis-client.js';
import type { WeirConfig } from '../config/schema.js';
import type { DeadLetter } from '../contracts/outbox.js';
import type { Sink } from '../contracts/sink.js';
import { WebhookSink } from '../webhook/webhook-sink.js';
import { explainRedisError, RedisUnreachableError } from '../errors/redis-unreachable.js';
import { ControlError } from './control-error.js';

// The Webhook sinks' backlog as the operator sees it: dead letters to list and replay,
// and where the queues live for the dashboard. ControlOps hands these on. An unknown
// sink rejects (NOT_FOUND), as every other failure of these waiting operations does;
// a Redis without a connection rejects REDIS_UNAVAILABLE (503), naming the URL and the
// OS error, where ioredis's own words would have been a 500.

/** Where the Webhook sinks' BullMQ queues live, for the backlog dashboard. */
export interface QueueView {
  redis: RedisAddress;
  nodeId: string;
  /** Tags of the Webhook sinks, one queue each. */
  sinks: string[];
}

function webhookSink(sinks: readonly Sink[], tag: string): WebhookSink {
  const sink = sinks.find((s) => s.tag === tag);
  if (!(sink instanceof WebhookSink)) throw new ControlError('NOT_FOUND', `no webhook sink "${tag}"`);
  return sink;
}

/** `work` on the sinks' Redis: a lost connection becomes REDIS_UNAVAILABLE. */
async function onRedis<T>(config: WeirConfig, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    const explained = config.redis ? await explainRedisError(err, firstUrl(redisAddressOf(config.redis))) : err;
    throw explained instanceof RedisUnreachableError ? new ControlError('REDIS_UNAVAILABLE', explained.message) : err;
  }
}

/** A Webhook sink's dead letters, oldest first, at most `limit`. */
export async function deadLettersOf(config: WeirConfig, sinks: readonly Sink[], tag: string, limit: number): Promise<DeadLetter[]> {
  const sink = webhookSink(sinks, tag);
  return onRedis(config, () => sink.deadLetters(limit));
}

/** Makes a Webhook sink's dead letters (all, or the given event ids) pending again. */
export async function replayDeadLettersOf(config: WeirConfig, sinks: readonly Sink[], tag: string, ids?: readonly string[]): Promise<{ sink: string; replayed: number }> {
  const sink = webhookSink(sinks, tag);
  return { sink: tag, replayed: await onRedis(config, () => sink.replayDeadLetters(ids)) };
}

/** The dashboard's view of the queues; null for a node without Redis (its outboxes are LMDB). */
export function queueViewOf(config: WeirConfig): QueueView | null {
  if (!config.redis) return null;
  return {
    redis: redisAddressOf(config.redis),
    nodeId: config.node.id,
    sinks: config.event_sinks.filter((s) => s.type === 'webhook').map((s) => s.tag),
  };
}
