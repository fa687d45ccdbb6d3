import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { startRedisServer } from '../support/redis-server.js';
import { startHookNode } from '../support/webhook-node.js';
import { startOrigin } from '../support/origin.js';
import { envKnob } from './env-knob.js';
import { commandCalls } from './fleet-redis.js';

/**
 * `node dist/spec/bench/idle-cost.js`: Redis commands per second (INFO commandstats,
 * the probe's own INFO left out) of one idle node with one Webhook sink delivered by
 * the node, over IDLE_MS (30 s by default), and which commands they are.
 */
async function main(): Promise<void> {
  const redis = await startRedisServer();
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, hook: { url: 'http://127.0.0.1:8089/hook' }, redisUrl: redis.url });
  const probe = new Redis(redis.url);
  try {
    await sleep(5000);
    const before = commandCalls(await probe.info('commandstats'));
    const t0 = performance.now();
    await sleep(envKnob('idle-cost', 'IDLE_MS', 30_000));
    const after = commandCalls(await probe.info('commandstats'));
    const seconds = (performance.now() - t0) / 1000;
    const used = Object.entries(after)
      .filter(([name]) => name !== 'info')
      .map(([name, calls]) => [name, calls - (before[name] ?? 0)] as const)
      .filter(([, n]) => n > 0);
    const total = used.reduce((n, [, c]) => n + c, 0);
    console.log(`idle-cost: ${(total / seconds).toFixed(2)} Redis commands/s for one idle node with one Webhook sink`);
    console.log(`idle-cost: over ${seconds.toFixed(1)} s: ${used.map(([name, n]) => `${name} ${n}`).join(', ')}`);
  } finally {
    probe.disconnect();
    await hn.node.stop();
    await origin.close();
    await redis.close();
  }
}

await main();
