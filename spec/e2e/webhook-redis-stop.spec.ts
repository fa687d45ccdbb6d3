import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { curl } from '../support/curl.js';
import { ofType, readJsonl } from '../support/jsonl.js';
import { startOrigin, type Origin } from '../support/origin.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { HOOK_TOKEN, startHookNode, stopAll, type HookNode } from '../support/webhook-node.js';

/**
 * Bound on a stop with Redis hung or dead, from SIGTERM to exit. The node aims at
 * 5 s (StopDeadline); 7 s leaves room for a loaded machine, and stays below the 10 s
 * after which a process manager SIGKILLs it. Before the stop's waits shared one
 * deadline they took 8–10 s here, one after the other.
 */
const STOP_BOUND_MS = 7000;
const TUNNELS = 3;

interface Stage {
  hn: HookNode;
  receiver: WebhookReceiver;
  origin: Origin;
  redis: RedisServer;
}

/** A node on Redis whose Webhook sink `hook` takes flow.completed and engine.stopped; its receiver hangs every delivery. */
async function startStage(): Promise<Stage> {
  const redis = await startRedisServer();
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  receiver.respond(() => ({ status: 200, delayMs: 60_000 }));
  const origin = await startOrigin();
  // One event per request, so each flow's delivery is a request in flight of its own.
  const hook = { url: receiver.url(), timeout_ms: 30_000, events: ['flow.completed', 'engine.stopped'], batch_size: 1 };
  const hn = await startHookNode({ origin, redisUrl: redis.url, hook });
  return { hn, receiver, origin, redis };
}

/**
 * SIGTERM with every wait of a stop under way: deliveries in flight (their leases
 * out), and tunnels open, whose flow.completed and the engine.stopped are appended at
 * the stop, to a Redis that `outage` has made fail. Resolves with the exit code and
 * the time from the signal to the exit.
 */
async function stopDuring({ hn, receiver, origin, redis }: Stage, outage: (redis: RedisServer) => Promise<void>): Promise<{ code: number | null; elapsedMs: number }> {
  await hn.curlFlows(2);
  await waitFor(() => receiver.inFlight() === 2, 10_000, 'two deliveries in flight');
  const socks = `127.0.0.1:${hn.node.ports['socks-in']}`;
  // Never-ending answers: these flows complete in the node's shutdown.
  const tunnels = Array.from({ length: TUNNELS }, (_, i) => curl(['--socks5-hostname', socks, '-o', '/dev/null', origin.url(`/silent?stop=${i}`)], 30_000));
  await waitFor(() => origin.connections().filter((c) => !c.closed).length === TUNNELS, 10_000, 'every tunnel open at the origin');
  await outage(redis);
  const started = Date.now();
  const code = await hn.node.stop();
  const elapsedMs = Date.now() - started;
  await Promise.all(tunnels);
  return { code, elapsedMs };
}

/**
 * After a restart with Redis back and the receiver answering: every flow.completed and
 * engine.stopped the JSONL archive holds (all published before the stop) reaches the
 * receiver or lies inside a replay gap the sink reports.
 */
async function assertNothingLost({ hn, receiver }: Stage): Promise<void> {
  const archived = readJsonl(hn.events);
  const due = [...ofType(archived, 'flow.completed'), ...ofType(archived, 'engine.stopped')];
  assert.is(due.length, 2 + TUNNELS + 1, 'the archive holds what the Webhook sink was due');
  receiver.respond(() => ({ status: 200 }));
  await hn.restart();
  const missing = (gaps: readonly { from_sequence: number; to_sequence: number }[]): string[] => {
    const acked = new Set(receiver.acknowledged().map((e) => String(e['event_id'])));
    const inGap = (seq: number): boolean => gaps.some((g) => g.from_sequence <= seq && seq <= g.to_sequence);
    return due.filter((e) => !acked.has(e.event_id) && !inGap(e.sequence)).map((e) => `${e.event_type} ${e.sequence}`);
  };
  await hn
    // Jobs the stopped node held wait for their locks to lapse (15 s) and two stalled-job checks (15 s apart).
    .sinkWhen((s) => missing(s.gaps ?? []).length === 0, 'every due event delivered or in a replay gap', { timeoutMs: 60_000 })
    .catch(async (err: unknown) => {
      const sink = await hn.sink().catch(() => undefined);
      throw new Error(`${(err as Error).message}: missing ${missing(sink?.gaps ?? []).join(', ')}; sink ${JSON.stringify(sink)}`);
    });
}

function assertPromptStop({ hn }: Stage, { code, elapsedMs }: { code: number | null; elapsedMs: number }): void {
  const tail = `weir's log (tail): ${hn.node.stdout().slice(-3000)}`;
  assert.is(code, 0, tail);
  assert.ok(elapsedMs <= STOP_BOUND_MS, `the stop took ${elapsedMs} ms (bound ${STOP_BOUND_MS} ms)\n${tail}`);
  const stopped = ofType(readJsonl(hn.events), 'engine.stopped');
  assert.is(stopped.length, 1, 'engine.stopped in the JSONL sink');
  assert.is(stopped[0]!.payload['reason'], 'signal');
}

test('a SIGTERM with Redis frozen ends the node within the bound, and after Redis resumes nothing it published is lost', async () => {
  const stage = await startStage();
  try {
    assertPromptStop(stage, await stopDuring(stage, async (redis) => redis.freeze()));
    stage.redis.thaw();
    await assertNothingLost(stage);
  } finally {
    stage.redis.thaw();
    await stopAll(stage.hn, stage.receiver, stage.origin, stage.redis);
  }
});

test('a SIGTERM with Redis dead ends the node within the bound, and after Redis returns nothing it published is lost', async () => {
  const stage = await startStage();
  try {
    assertPromptStop(stage, await stopDuring(stage, (redis) => redis.kill9()));
    await stage.redis.restart();
    await assertNothingLost(stage);
  } finally {
    await stopAll(stage.hn, stage.receiver, stage.origin, stage.redis);
  }
});

test.run();
