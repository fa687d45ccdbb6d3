import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WAIT_MS } from '../support/far-bound.js';
import { curl } from '../support/curl.js';
import { freePorts } from '../support/free-port.js';
import { ofType, readJsonl, waitForEvents, type JsonEnvelope } from '../support/jsonl.js';
import { startOrigin, type Origin } from '../support/origin.js';
import { startNode, type WeirNode } from '../support/start-node.js';
import { restartableConfig, type RestartableConfig } from '../support/restartable-config.js';
import { runWeir } from '../support/weir-bin.js';
import { controlUp, getJson } from '../support/control-json.js';
import { ALICE, BOB, usersInbound } from '../support/principal-users.js';


interface Counters {
  bytes_up: number;
  bytes_down: number;
  flows_opened: number;
  flows_completed: number;
  flows_failed: number;
}

interface Principal {
  principal_key: string | null;
  flows_active: number;
  since_start: Counters;
  since_reset: Counters;
}

/** Two SOCKS5 inbounds, one with users (bob's flows keyed `team-b`), one without; a port where nothing listens. */
async function principalsNode(): Promise<RestartableConfig & { socks: number; open: number; dead: number }> {
  const n = await restartableConfig({
    inbounds: [
      usersInbound(),
      { type: 'socks', tag: 'socks-open' },
    ],
  });
  const [dead] = await freePorts(1);
  return { ...n, socks: n.ports['socks-users']!, open: n.ports['socks-open']!, dead: dead! };
}


/** Sums of the flow.completed records of `events` per principal_key (null under ''), as the ledger counts them. */
function sums(events: readonly JsonEnvelope[]): Map<string | null, Counters> {
  const out = new Map<string | null, Counters>();
  for (const e of ofType(events, 'flow.completed')) {
    const record = e.payload['record'] as { traffic: { bytes_up: number; bytes_down: number }; result: { outcome: string } };
    const c = out.get(e.principal_key) ?? { bytes_up: 0, bytes_down: 0, flows_opened: 0, flows_completed: 0, flows_failed: 0 };
    c.bytes_up += record.traffic.bytes_up;
    c.bytes_down += record.traffic.bytes_down;
    c.flows_opened++;
    c.flows_completed++;
    if (record.result.outcome === 'failed') c.flows_failed++;
    out.set(e.principal_key, c);
  }
  return out;
}

/** Real traffic of every kind: two users with downloads and an upload, a flow without a principal, a failed flow. */
async function traffic(n: { socks: number; open: number; dead: number }, origin: Origin, round: number): Promise<number> {
  const runs = [
    curl(['--socks5-hostname', `127.0.0.1:${n.socks}`, '--proxy-user', ALICE, origin.url(`/bytes/${3000 + round}?r=${round}`)]),
    curl(['--socks5-hostname', `127.0.0.1:${n.socks}`, '--proxy-user', ALICE, '--data-binary', 'x'.repeat(700 + round), origin.url(`/upload?r=${round}`)]),
    curl(['--socks5-hostname', `127.0.0.1:${n.socks}`, '--proxy-user', BOB, origin.url(`/bytes/${12_345 * round}?r=${round}`)]),
    curl(['--socks5-hostname', `127.0.0.1:${n.open}`, origin.url(`/bytes/${77 + round}?r=${round}`)]),
  ];
  const results = await Promise.all(runs);
  for (const r of results) assert.is(r.code, 0, r.stderr);
  // Nothing listens on `dead`: the flow ends `failed`.
  const failed = await curl(['--socks5-hostname', `127.0.0.1:${n.socks}`, '--proxy-user', ALICE, `http://127.0.0.1:${n.dead}/`]);
  assert.is.not(failed.code, 0);
  return runs.length + 1;
}

function assertAgree(principals: Principal[], window: 'since_start' | 'since_reset', expected: Map<string | null, Counters>, what: string): void {
  const shown = new Map(principals.map((p) => [p.principal_key, p[window]]));
  assert.equal([...shown.keys()], [null, 'alice', 'team-b'], `${what}: the principals, null first`);
  for (const [key, counters] of expected) assert.equal(shown.get(key), counters, `${what}: ${key}`);
}

async function completedFlows(events: string, count: number): Promise<JsonEnvelope[]> {
  return waitForEvents(events, (es) => ofType(es, 'flow.completed').length >= count, WAIT_MS, `${count} flow.completed`);
}

test('principal totals agree byte for byte with the JSONL archive across a graceful restart, and a reset starts them over', async () => {
  const n = await principalsNode();
  const origin = await startOrigin();
  let node: WeirNode | null = null;
  try {
    node = await startNode(n.config);
    await controlUp(n.control);
    let flows = await traffic(n, origin, 1);
    const firstRun = await completedFlows(n.events, flows);
    const first = await getJson(`${n.control}/api/v1/principals`);
    assert.is(first.status, 200);
    assert.ok(first.body.started_at_unix_ms > 0 && first.body.reset_at_unix_ms === first.body.started_at_unix_ms);
    assertAgree(first.body.principals, 'since_start', sums(firstRun), 'first run, since start');
    assertAgree(first.body.principals, 'since_reset', sums(firstRun), 'first run, since reset');
    assert.equal(first.body.principals.map((p: Principal) => p.flows_active), [0, 0, 0]);
    assert.is(sums(firstRun).get('alice')!.flows_failed, 1, 'the flow to a dead port failed');

    assert.is(await node.stop(), 0);
    node = await startNode(n.config);
    await controlUp(n.control);
    const restarted = await getJson(`${n.control}/api/v1/principals`);
    assertAgree(restarted.body.principals, 'since_reset', sums(firstRun), 'after the restart, since reset');
    assert.equal(restarted.body.principals[1].since_start, { bytes_up: 0, bytes_down: 0, flows_opened: 0, flows_completed: 0, flows_failed: 0 });
    assert.is(restarted.body.reset_at_unix_ms, first.body.reset_at_unix_ms, 'the reset time is kept');

    flows += await traffic(n, origin, 2);
    const all = await completedFlows(n.events, flows);
    const secondRun = all.slice(all.findLastIndex((e) => e.event_type === 'engine.started'));
    // Through the IPC channel and the CLI: the same operation.
    const cli = await runWeir(['principals', '--json', '-c', node.configPath]);
    assert.is(cli.code, 0, cli.stderr);
    const both = JSON.parse(cli.stdout) as { principals: Principal[] };
    assertAgree(both.principals, 'since_reset', sums(all), 'both runs, since reset');
    assertAgree(both.principals, 'since_start', sums(secondRun), 'second run, since start');
    assert.is(readJsonl(n.events).filter((e) => e.event_type === 'engine.stopped').length, 1);

    const table = await runWeir(['principals', '-c', node.configPath]);
    assert.is(table.code, 0, table.stderr);
    assert.match(table.stdout, /^\(none\)\s/m);
    assert.match(table.stdout, /^team-b\s/m);

    const reset = await getJson(`${n.control}/api/v1/principals/reset`, 'POST');
    assert.is(reset.status, 200);
    const afterReset = await getJson(`${n.control}/api/v1/principals`);
    assert.is(afterReset.body.reset_at_unix_ms, reset.body.reset_at_unix_ms);
    for (const p of afterReset.body.principals as Principal[]) {
      assert.equal(p.since_reset, { bytes_up: 0, bytes_down: 0, flows_opened: 0, flows_completed: 0, flows_failed: 0 });
    }
    assertAgree(afterReset.body.principals, 'since_start', sums(secondRun), 'a reset leaves since_start');
    const cliReset = await runWeir(['principals', 'reset', '-c', node.configPath]);
    assert.is(cliReset.code, 0, cliReset.stderr);
    assert.match(cliReset.stdout, /^principal counters reset at /);
  } finally {
    if (node) assert.is(await node.stop(), 0);
    await origin.close();
  }
});

test.run();
