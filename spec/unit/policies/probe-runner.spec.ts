import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SelectorPolicy } from '../../../actors/outbounds/selector-policy.js';
import { UrlTestPolicy } from '../../../actors/outbounds/url-test-policy.js';
import type { ProbeCompletedPayload } from '../../../actors/policies/policy-events.js';
import { FlowFailureError } from '../../../actors/errors/flow-failure.js';
import { ProbeRunner, type ProbeRunnerOptions } from '../../../actors/policies/probe-runner.js';
import { FAR_MS, settlesBeforeFar } from '../../support/far-bound.js';
import { rejectionOf } from '../../support/rejection.js';
import { waitFor } from '../../support/wait-for.js';
import { Origin, OriginOutbound, outboundSet, Published, sleep, urlTestConfig, type UrlTestConfig } from './fixtures.js';

interface Rig {
  runner: ProbeRunner;
  policy: UrlTestPolicy;
  out: Published;
  origins: Record<string, Origin>;
  leaves: Record<string, OriginOutbound>;
}

/** A url_test group "auto" whose members each reach their own origin with the given delay. */
async function rig(
  delays: Record<string, number | 'never'>,
  over: Partial<UrlTestConfig> = {},
  runnerOptions: Pick<ProbeRunnerOptions, 'forwardGapMs'> = {},
): Promise<Rig> {
  const origins: Record<string, Origin> = {};
  const leaves: Record<string, OriginOutbound> = {};
  for (const [tag, delay] of Object.entries(delays)) {
    origins[tag] = await Origin.start(delay);
    leaves[tag] = new OriginOutbound(tag, origins[tag]);
  }
  const members = Object.keys(delays);
  const policy = new UrlTestPolicy('auto', members);
  const out = new Published();
  const runner = new ProbeRunner({
    configs: [{ type: 'direct', tag: 'direct' }, urlTestConfig('auto', members, over)],
    outbounds: outboundSet(Object.values(leaves), [policy]),
    publish: out.publish,
    ...runnerOptions,
  });
  return { runner, policy, out, origins, leaves };
}

async function teardown(r: Rig): Promise<void> {
  await r.runner.stop();
  await Promise.all(Object.values(r.origins).map((o) => o.close()));
}

function latency(p: ProbeCompletedPayload, tag: string): number {
  return p.members.find((m) => m.target_tag === tag)!.latency_ms!;
}

test('the startup round selects the fastest member and reports every field of the contract', async () => {
  const r = await rig({ slow: 250, fast: 20, dead: 'never' }, { timeout_ms: 600 });
  try {
    const before = Date.now();
    await r.runner.start();
    const after = Date.now();
    assert.equal(
      r.out.events.map((e) => e.event_type),
      ['policy.selected', 'policy.probe.completed'],
    );
    assert.ok(r.out.events.every((e) => e.occurred_at_unix_ms === undefined), 'occurred_at is the publish time');
    assert.equal(r.out.events[0]!.payload, { policy_tag: 'auto', policy_kind: 'url_test', selected: 'fast', previous: 'slow' });
    const p = r.out.events[1]!.payload as ProbeCompletedPayload;
    assert.equal(Object.keys(p).sort(), [
      'completed_at_unix_ms', 'duration_ms', 'members', 'policy_tag', 'selected', 'started_at_unix_ms', 'trigger', 'url',
    ]);
    assert.is(p.policy_tag, 'auto');
    assert.is(p.trigger, 'startup');
    assert.is(p.url, 'http://probe.test:8080/generate_204');
    assert.is(p.selected, 'fast');
    assert.ok(p.started_at_unix_ms >= before && p.completed_at_unix_ms <= after);
    assert.is(p.duration_ms, p.completed_at_unix_ms - p.started_at_unix_ms);
    assert.ok(p.duration_ms >= 595, `the round waits for the dead member's timeout: ${p.duration_ms} ms`);
    assert.equal(p.members.map((m) => [m.target_tag, m.healthy, m.error]), [
      ['slow', true, null],
      ['fast', true, null],
      ['dead', false, 'PROBE_TIMEOUT: no HTTP status line within 600 ms'],
    ]);
    assert.ok(latency(p, 'slow') >= 249 && Number.isInteger(latency(p, 'slow')));
    assert.ok(latency(p, 'fast') >= 19 && Number.isInteger(latency(p, 'fast')));
    assert.is(p.members[2]!.latency_ms, null);
    assert.is(r.policy.current(), 'fast');
    // Each member dialled the url's host and port and asked for its path.
    for (const tag of ['slow', 'fast', 'dead']) {
      assert.equal(r.leaves[tag]!.dialled, [{ host: 'probe.test', port: 8080 }]);
      assert.equal(r.origins[tag]!.requests, [{ path: '/generate_204', host: 'probe.test:8080' }]);
    }
  } finally {
    await teardown(r);
  }
});

test('policy.probe.completed shows the url with its query values REDACTED; the probe asks for the full query', async () => {
  const r = await rig({ a: 0 }, { url: 'http://probe.test:8080/ok?token=s3cr3t-probe&v=2' });
  try {
    await r.runner.start();
    const [p] = r.out.ofType('policy.probe.completed') as ProbeCompletedPayload[];
    assert.is(p?.url, 'http://probe.test:8080/ok?token=REDACTED&v=REDACTED');
    assert.not.ok(JSON.stringify(r.out.events).includes('s3cr3t-probe'), 'no event carries the secret');
    assert.equal(r.origins['a']!.requests, [{ path: '/ok?token=s3cr3t-probe&v=2', host: 'probe.test:8080' }]);
  } finally {
    await teardown(r);
  }
});

test('a startup round that keeps the first member emits no policy.selected', async () => {
  const r = await rig({ a: 0, b: 200 });
  try {
    await r.runner.start();
    assert.equal(r.out.events.map((e) => e.event_type), ['policy.probe.completed']);
    assert.is((r.out.events[0]!.payload as ProbeCompletedPayload).selected, 'a');
  } finally {
    await teardown(r);
  }
});

test('a faster member within the tolerance does not cause a switch; beyond it, it does', async () => {
  const r = await rig({ a: 20, b: 200 }, { tolerance_ms: 200 });
  try {
    await r.runner.start();
    assert.is(r.policy.current(), 'a');
    r.origins.a!.delayMs = 120;
    r.origins.b!.delayMs = 20;
    const within = await r.runner.probe('auto');
    assert.is(within.selected, 'a', `gain ${latency(within, 'a') - latency(within, 'b')} ms`);
    assert.equal(r.out.ofType('policy.selected'), []);
    r.origins.a!.delayMs = 450;
    const beyond = await r.runner.probe('auto');
    assert.is(beyond.selected, 'b');
    assert.is(r.policy.current(), 'b');
    assert.equal(r.out.ofType('policy.selected'), [{ policy_tag: 'auto', policy_kind: 'url_test', selected: 'b', previous: 'a' }]);
  } finally {
    await teardown(r);
  }
});

test('an unhealthy current member is left for a healthy one whatever the tolerance', async () => {
  const r = await rig({ a: 0, b: 100 }, { tolerance_ms: 10_000 });
  try {
    await r.runner.start();
    r.origins.a!.status = 503;
    const p = await r.runner.probe('auto');
    assert.is(p.selected, 'b');
    const [a] = p.members;
    assert.equal([a!.healthy, a!.error], [false, 'PROBE_HTTP_STATUS: HTTP status 503']);
    assert.ok(Number.isInteger(a!.latency_ms), 'a 5xx answer still has its latency');
    assert.equal(r.out.ofType('policy.selected'), [{ policy_tag: 'auto', policy_kind: 'url_test', selected: 'b', previous: 'a' }]);
  } finally {
    await teardown(r);
  }
});

test('with no healthy member the group keeps its choice and reports it', async () => {
  const r = await rig({ a: 'never', b: 'never' }, { timeout_ms: 100 });
  try {
    await r.runner.start();
    assert.equal(r.out.events.map((e) => e.event_type), ['policy.probe.completed']);
    const p = r.out.events[0]!.payload as ProbeCompletedPayload;
    assert.is(p.selected, 'a');
    assert.equal(p.members.map((m) => m.healthy), [false, false]);
  } finally {
    await teardown(r);
  }
});

test('scheduled rounds follow every interval_s until stop()', async () => {
  const r = await rig({ a: 0 }, { interval_s: 0.1 });
  try {
    await r.runner.start();
    const rounds = await waitFor(() => {
      const done = r.out.ofType('policy.probe.completed') as ProbeCompletedPayload[];
      return done.length >= 3 && done;
    }, FAR_MS, 'three probe rounds');
    assert.equal(rounds.map((p) => p.trigger), ['startup', ...rounds.slice(1).map(() => 'scheduled')]);
    rounds.slice(1).forEach((p, i) => {
      const pause = p.started_at_unix_ms - rounds[i]!.completed_at_unix_ms;
      assert.ok(pause >= 95, `round ${i + 2} started ${pause} ms after the one before ended`);
    });
    await r.runner.stop();
    const count = r.out.events.length;
    await sleep(300);
    assert.is(r.out.events.length, count);
  } finally {
    await teardown(r);
  }
});

/** A dial failure of `code` at the hop `a` (or, for a connect-stage code, of a direct dial). */
function failure(code: 'HOP_REFUSED' | 'HOP_TIMEOUT' | 'HOP_REJECTED' | 'DIAL_REFUSED'): FlowFailureError {
  const remote = { host: '127.0.0.1', port: 1080 };
  return code.startsWith('HOP_') ? new FlowFailureError(code, 'spec', remote, { stage: 'hop:a' }) : new FlowFailureError(code, 'spec', remote);
}

test('a hop failure on the path brings the next round forward, forwardGapMs after the last at the earliest, one round for many', async () => {
  const r = await rig({ a: 0, b: 0 }, {}, { forwardGapMs: 300 });
  try {
    await r.runner.start();
    for (const code of ['HOP_REFUSED', 'HOP_TIMEOUT', 'HOP_REFUSED'] as const) r.runner.pathFailed(['proxy', 'auto', 'a'], failure(code));
    const rounds = await waitFor(() => {
      const done = r.out.ofType('policy.probe.completed') as ProbeCompletedPayload[];
      return done.length === 2 && done;
    }, FAR_MS, 'a round brought forward');
    assert.is(rounds[1]!.trigger, 'scheduled');
    const pause = rounds[1]!.started_at_unix_ms - rounds[0]!.completed_at_unix_ms;
    assert.ok(pause >= 295, `the round came ${pause} ms after the one before`);
    await sleep(400);
    assert.is(r.out.ofType('policy.probe.completed').length, 2, 'three failures, one round');
  } finally {
    await teardown(r);
  }
});

test("a hop's refusal of the CONNECT, a direct dial's failure and groups off the path bring no round forward", async () => {
  const r = await rig({ a: 0, b: 0 }, {}, { forwardGapMs: 0 });
  try {
    await r.runner.start();
    r.runner.pathFailed(['auto', 'a'], failure('HOP_REJECTED'));
    r.runner.pathFailed(['auto', 'a'], failure('DIAL_REFUSED'));
    r.runner.pathFailed(['proxy', 'direct'], failure('HOP_REFUSED'));
    await sleep(200);
    assert.is(r.out.ofType('policy.probe.completed').length, 1);
  } finally {
    await teardown(r);
  }
});

test('probe(tag) runs a manual round and resolves with the payload it published', async () => {
  const r = await rig({ a: 0, b: 0 });
  try {
    const p = await r.runner.probe('auto');
    assert.is(p.trigger, 'manual');
    assert.equal(r.out.ofType('policy.probe.completed'), [p]);
  } finally {
    await teardown(r);
  }
});

test('requests while a round runs join it instead of starting another', async () => {
  const r = await rig({ a: 200, b: 200 });
  try {
    const startup = r.runner.start();
    const [one, two] = await Promise.all([r.runner.probe('auto'), r.runner.probe('auto')]);
    await startup;
    assert.is(one, two);
    assert.is(one.trigger, 'startup');
    assert.is(r.out.ofType('policy.probe.completed').length, 1);
    assert.is(r.origins.a!.requests.length, 1);
    assert.is(r.origins.b!.requests.length, 1);
  } finally {
    await teardown(r);
  }
});

test('rounds longer than the interval never overlap', async () => {
  const r = await rig({ a: 150 }, { interval_s: 0.02 });
  const manual = setInterval(() => void r.runner.probe('auto').catch(() => {}), 30);
  try {
    await r.runner.start();
    const rounds = await waitFor(() => {
      const done = r.out.ofType('policy.probe.completed') as ProbeCompletedPayload[];
      return done.length >= 4 && done;
    }, FAR_MS, 'four probe rounds');
    clearInterval(manual);
    assert.is(r.origins.a!.maxInFlight, 1);
    rounds.slice(1).forEach((p, i) => assert.ok(p.started_at_unix_ms >= rounds[i]!.completed_at_unix_ms));
  } finally {
    clearInterval(manual);
    await teardown(r);
  }
});

test('stop() aborts a running round, which publishes nothing', async () => {
  const r = await rig({ a: 'never' }, { timeout_ms: FAR_MS });
  try {
    const startup = r.runner.start();
    await waitFor(() => r.origins.a!.requests.length === 1, FAR_MS, 'the probe request');
    // Without the abort the round would last until its FAR_MS timeout.
    await settlesBeforeFar(Promise.all([r.runner.stop(), startup]), 'stop() and the aborted round');
    assert.equal(r.out.events, []);
  } finally {
    await teardown(r);
  }
});

test('probe() rejects a tag that is no url_test group, and any tag once stopped', async () => {
  const r = await rig({ a: 0 });
  try {
    await assertRejects(r.runner.probe('direct'), 'PROBE_GROUP_NOT_FOUND');
    await r.runner.stop();
    await assertRejects(r.runner.probe('auto'), 'PROBE_RUNNER_STOPPED');
  } finally {
    await teardown(r);
  }
});

test('a member that is a group is probed through its current leaf', async () => {
  const x = await Origin.start(0);
  const y = await Origin.start(0);
  const leafX = new OriginOutbound('x', x);
  const leafY = new OriginOutbound('y', y);
  const out = new Published();
  const runner = new ProbeRunner({
    configs: [urlTestConfig('auto', ['pick', 'y'])],
    outbounds: outboundSet([leafX, leafY], [new SelectorPolicy('pick', ['y', 'x'], 'x'), new UrlTestPolicy('auto', ['pick', 'y'])]),
    publish: out.publish,
  });
  try {
    const p = await runner.probe('auto');
    assert.equal(p.members.map((m) => [m.target_tag, m.healthy]), [['pick', true], ['y', true]]);
    assert.is(x.requests.length, 1);
    assert.is(y.requests.length, 1);
  } finally {
    await runner.stop();
    await Promise.all([x.close(), y.close()]);
  }
});

test('a selector whose choice is a url_test group routes to the group choice and reports the group tag', async () => {
  const fast = await Origin.start(0);
  const slow = await Origin.start(150);
  const auto = new UrlTestPolicy('auto', ['slow', 'fast']);
  const proxy = new SelectorPolicy('proxy', ['direct', 'auto'], 'auto');
  const set = outboundSet([new OriginOutbound('slow', slow), new OriginOutbound('fast', fast)], [proxy, auto]);
  const runner = new ProbeRunner({ configs: [urlTestConfig('auto', ['slow', 'fast'])], outbounds: set, publish: () => {} });
  try {
    assert.equal(set.resolve('proxy').selection_chain, ['proxy', 'auto', 'slow']);
    await runner.start();
    const { outbound, selection_chain } = set.resolve('proxy');
    assert.equal(selection_chain, ['proxy', 'auto', 'fast']);
    assert.is(outbound.tag, 'fast');
    assert.is(proxy.current(), 'auto');
  } finally {
    await runner.stop();
    await Promise.all([fast.close(), slow.close()]);
  }
});

async function assertRejects(promise: Promise<unknown>, code: string): Promise<void> {
  assert.is(((await rejectionOf(promise)) as { code?: string }).code, code);
}

test.run();
