import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { startRedisServer } from '../support/redis-server.js';
import { startHookNode } from '../support/webhook-node.js';
import { startOrigin } from '../support/origin.js';
import { envKnob } from './env-knob.js';

/** Calls of every command, INFO commandstats summed (commands scripts run included). */
export async function commandCalls(redis: Redis): Promise<number> {
  const info = await redis.info('commandstats');
  return [...info.matchAll(/calls=(\d+)/g)].reduce((n, m) => n + Number(m[1]), 0);
}

/** Redis commands per second over `ms` of `redis`'s commandstats, less the two INFO calls of the probe. */
export async function commandsPerSecond(redis: Redis, ms: number): Promise<{ perSecond: number; byCommand: Record<string, number> }> {
  const parse = (info: string): Record<string, number> =>
    Object.fromEntries([...info.matchAll(/cmdstat_([^:]+):calls=(\d+)/g)].map((m) => [m[1]!, Number(m[2])]));
  const before = parse(await redis.info('commandstats'));
  const t0 = performance.now();
  await sleep(ms);
  const after = parse(await redis.info('commandstats'));
  const seconds = (performance.now() - t0) / 1000;
  const byCommand: Record<string, number> = {};
  for (const [name, calls] of Object.entries(after)) {
    const n = calls - (before[name] ?? 0) - (name === 'info' ? 1 : 0);
    if (n > 0) byCommand[name] = n;
  }
  const total = Object.values(byCommand).reduce((a, b) => a + b, 0);
  return { perSecond: total / seconds, byCommand };
}

/** `node dist/spec/bench/idle-cost.js`: one idle node with one Webhook sink on a real Redis, commands/s over IDLE_MS (30 s). */
async function main(): Promise<void> {
  const redis = await startRedisServer();
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, hook: { url: 'http://127.0.0.1:8089/hook' }, redisUrl: redis.url });
  const probe = new Redis(redis.url);
  try {
    await sleep(5000);
    const { perSecond, byCommand } = await commandsPerSecond(probe, envKnob('idle-cost', 'IDLE_MS', 30_000));
    console.log(`idle-cost: ${perSecond.toFixed(2)} Redis commands/s for one idle node with one Webhook sink`);
    console.log(`idle-cost: by command ${JSON.stringify(byCommand)}`);
  } finally {
    probe.disconnect();
    await hn.node.stop();
    await origin.close();
    await redis.close();
  }
}

if (process.argv[1]?.endsWith('idle-cost.js')) await main();
