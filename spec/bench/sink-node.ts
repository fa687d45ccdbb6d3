import { setImmediate as nextMacrotask } from 'node:timers/promises';
import pino from 'pino';
import { parseConfig } from '../../actors/config/load-config.js';
import { Engine } from '../../actors/engine/engine.js';
import type { BusEvent } from '../../streams/contract.js';
import type { EventBus } from '../../streams/event-bus.js';
import type { SinkNode } from './sink-messages.js';

const BUILD = { git_hash: 'bench', features: [], build_profile: 'bench', binary_sha256: '' };

/** The real engine from a config literal: one socks inbound, one Webhook sink taking flow.completed. */
export function engineFor(node: SinkNode): Engine {
  const parsed = parseConfig(
    {
      node: { id: node.nodeId, state_dir: node.stateDir },
      log: { level: 'warn' },
      control: { listen: '127.0.0.1:0', api_key: 'bench-key-0123456789' },
      inbounds: [{ type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port: 0 }],
      outbounds: [{ type: 'direct', tag: 'direct' }],
      route: { final: 'direct' },
      ...(node.redisUrl === null ? {} : { redis: { url: node.redisUrl } }),
      event_sinks: [
        {
          type: 'webhook',
          tag: 'bench',
          url: node.url,
          token: 'bench-token',
          events: ['flow.completed'],
          batch_size: node.batchSize,
          concurrency: node.concurrency,
        },
      ],
    },
    { env: {} },
  );
  if (!parsed.ok) throw new Error(`bench config is invalid: ${JSON.stringify(parsed.problems)}`);
  return new Engine({ config: parsed.config, log: pino({ level: 'warn' }), build: BUILD });
}

/**
 * Publishes chunk by chunk, one chunk per macrotask, so the sink's batching window and
 * delivery run between chunks as they would beside a busy node; returns the ms spent
 * inside publish. A chunk's events are taken from `events` before its publish is timed.
 */
export async function publishTimed(bus: EventBus, events: Iterable<BusEvent>, chunk: number): Promise<number> {
  let spent = 0;
  const source = events[Symbol.iterator]();
  for (;;) {
    const batch = take(source, chunk);
    if (batch.length === 0) return spent;
    const start = performance.now();
    for (const event of batch) bus.publish(event);
    spent += performance.now() - start;
    await nextMacrotask();
  }
}

/** Up to `n` more items of `source`. */
function take<T>(source: Iterator<T>, n: number): T[] {
  const out: T[] = [];
  while (out.length < n) {
    const next = source.next();
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}
