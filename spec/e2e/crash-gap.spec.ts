import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SEQUENCE_BLOCK } from '../../actors/files/sequence-reservation.js';
import { WAIT_MS } from '../support/far-bound.js';
import { ofType, readJsonl, waitForEvents, warningsOf, type JsonEnvelope } from '../support/jsonl.js';
import { startOrigin } from '../support/origin.js';
import { startRedisServer } from '../support/redis-server.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { HOOK_TOKEN, startHookNode, stopAll } from '../support/webhook-node.js';

/** The range the warning names for `tag`: `sink "<tag>" <from>..<to>`. */
function rangeNamed(warning: JsonEnvelope, tag: string): [number, number] {
  const found = new RegExp(`sink "${tag}" (\\d+)\\.\\.(\\d+)`).exec(String(warning.payload['message']));
  assert.ok(found, `the warning names sink ${tag}: ${String(warning.payload['message'])}`);
  return [Number(found[1]), Number(found[2])];
}

test('a flow.completed that a kill -9 caught before it reached the outbox is in a replay gap after the restart', async () => {
  const redis = await startRedisServer();
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  receiver.respond(() => ({ status: 200 }));
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, redisUrl: redis.url, hook: { url: receiver.url() } });
  try {
    await hn.curlFlows(1);
    await hn.sinkWhen((s) => s.total_delivered === 1, 'the first delivered');
    // A frozen Redis holds the next append unanswered (for up to 3 s before the outage journal takes it).
    redis.freeze();
    const port = await hn.curlFlow();
    const archived = await waitForEvents(hn.events, (es) => ofType(es, 'flow.completed').length === 2, 2000, 'the second flow.completed archived');
    await hn.node.kill9();
    const lost = ofType(archived, 'flow.completed').find((e) => (e.payload['record'] as { source?: { port: number } }).source?.port === port)!;

    redis.thaw();
    await hn.restart();
    const after = await hn.sinkWhen((s) => s.replay_gaps === 1, 'the crash counted as a replay gap');
    assert.ok(
      (after.gaps ?? []).some((g) => g.from_sequence <= lost.sequence && lost.sequence <= g.to_sequence),
      `sequence ${lost.sequence} is in a gap: ${JSON.stringify(after.gaps)}`,
    );
    const [warning] = await warningsOf(hn.events, 'unclean_stop');
    const [from, to] = rangeNamed(warning!, 'hook');
    assert.ok(from <= lost.sequence && lost.sequence <= to, `${from}..${to} holds ${lost.sequence}`);
    const restarted = ofType(readJsonl(hn.events), 'engine.started').at(-1)!;
    assert.is(to, restarted.sequence - 1, 'the gap ends where the new run begins');
  } finally {
    redis.thaw();
    await stopAll(hn, receiver, origin, redis);
  }
});

test('a clean stop counts no gap; a kill -9 counts one from past what the sink had kept', async () => {
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, hook: null });
  try {
    await hn.curlFlows(2);
    const events = await waitForEvents(hn.events, (es) => ofType(es, 'flow.completed').length === 2, WAIT_MS, 'two flow.completed archived');
    const lastCompleted = Math.max(...ofType(events, 'flow.completed').map((e) => e.sequence));
    assert.is(await hn.node.stop(), 0);
    await hn.restart();
    assert.is((await hn.sink('archive'))!.replay_gaps, 0);

    // Two ticks: the archive's mark has moved past the flows' events before the kill.
    await sleep(2500);
    await hn.node.kill9();
    await hn.restart();
    await hn.sinkWhen((s) => s.replay_gaps === 1, 'the kill counted as a replay gap', { tag: 'archive' });
    const warnings = await warningsOf(hn.events, 'unclean_stop');
    assert.is(warnings.length, 1, 'none after the clean stop');
    const [from, to] = rangeNamed(warnings[0]!, 'archive');
    const started = ofType(readJsonl(hn.events), 'engine.started');
    assert.is(started.length, 3);
    assert.ok(from > lastCompleted && from > started[1]!.sequence, `the gap ${from}..${to} starts past what was kept before the kill`);
    assert.is(to, started[2]!.sequence - 1);
  } finally {
    await stopAll(hn, origin);
  }
});

test('a kill -9 and a lost sequence.json: the next run begins past what the sink had kept and counts the gap from there', async () => {
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, hook: null });
  try {
    await hn.curlFlows(2);
    // Two ticks: the archive's mark has moved past the flows' events before the kill.
    await sleep(2500);
    await hn.node.kill9();
    const stateDir = path.dirname(hn.events);
    const kept = (JSON.parse(fs.readFileSync(path.join(stateDir, 'sink-marks.json'), 'utf8')) as Record<string, number>)['archive']!;
    const lastBefore = readJsonl(hn.events).at(-1)!.sequence;
    fs.rmSync(path.join(stateDir, 'sequence.json'));
    await hn.restart();
    // Before, the run began at 1 again (below what was archived) and the gap named no range.
    await hn.sinkWhen((s) => s.replay_gaps === 1, 'the kill counted as a replay gap', { tag: 'archive' });
    // The gap can be counted before the new run's engine.started is written to the archive.
    const archived = await waitForEvents(hn.events, (es) => ofType(es, 'engine.started').length === 2, WAIT_MS, 'the new run archived');
    const restarted = ofType(archived, 'engine.started').at(-1)!;
    assert.is(restarted.sequence, kept + 1 + SEQUENCE_BLOCK, 'a block past the mark');
    assert.ok(restarted.sequence > lastBefore, `the new run (${restarted.sequence}) begins past the killed one (${lastBefore})`);
    const [warning] = await warningsOf(hn.events, 'unclean_stop');
    assert.match(String(warning!.payload['message']), `sequence.json was missing, not past sequence ${kept} that a sink had kept`);
    assert.equal(rangeNamed(warning!, 'archive'), [kept + 1, restarted.sequence - 1]);
  } finally {
    await stopAll(hn, origin);
  }
});

test('a second kill -9 right after the restart loses neither crash’s gap of a JSONL sink', async () => {
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, hook: null });
  try {
    await hn.curlFlows(1);
    await hn.node.kill9();
    // The restart counts the first crash's range; it is killed before any tick.
    await hn.restart();
    await hn.node.kill9();
    await hn.restart();
    assert.is(await hn.node.stop(), 0);
    await hn.restart();
    assert.is((await hn.sink('archive'))!.replay_gaps, 2, 'one gap for each crash');
    // The restart killed at once may not have archived its own warning (that is in the second gap).
    const warnings = await warningsOf(hn.events, 'unclean_stop');
    rangeNamed(warnings.at(-1)!, 'archive');
  } finally {
    await stopAll(hn, origin);
  }
});

test.run();
