import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { WorkerView } from '../../actors/engine/data-plane.js';
import { socksConnect } from '../bench/socks5-client.js';
import { curl } from '../support/curl.js';
import { WAIT_MS } from '../support/far-bound.js';
import { fixture } from '../support/fixture.js';
import { ofType, readJsonl, waitForEvents, type JsonEnvelope } from '../support/jsonl.js';
import { e2eConfig, eventsPath } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startNode } from '../support/start-node.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { runWeir } from '../support/weir-bin.js';

const setup = fixture(
  test,
  async () => {
    const stateDir = tempDir();
    const origin = await startOrigin();
    const base = e2eConfig({
      stateDir,
      inbounds: [{ type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port: 0 }],
      outbounds: [{ type: 'selector', tag: 'proxy', members: ['direct', 'block'], default: 'direct' }],
      route: { final: 'proxy' },
    });
    const node = await startNode({ ...base, node: { ...(base['node'] as object), workers: 2 } });
    const weir = (...args: string[]): ReturnType<typeof runWeir> => runWeir([...args, '-c', node.configPath]);
    return { origin, node, weir, events: eventsPath(stateDir), port: node.ports['socks-in']! };
  },
  async ({ origin, node }) => {
    await node.stop();
    await origin.close();
  },
);

async function workers(): Promise<WorkerView[]> {
  const { weir } = await setup();
  const status = await weir('status', '--json');
  assert.is(status.code, 0, status.stderr);
  return (JSON.parse(status.stdout) as { workers: WorkerView[] }).workers;
}

/** Opens `n` tunnels through the SOCKS5 inbound to the origin, left open, one after the other. */
async function holdTunnels(n: number): Promise<net.Socket[]> {
  const { port, origin } = await setup();
  const sockets: net.Socket[] = [];
  for (let i = 0; i < n; i++) sockets.push((await socksConnect(port, origin.port, WAIT_MS)).socket);
  return sockets;
}

/** The kernel picks the worker that accepts: at most this many tunnels are opened until both have some. */
const MOST_TUNNELS = 40;

/** Opens tunnels until both workers run some (at most MOST_TUNNELS); returns them and the workers then. */
async function tunnelsInBoth(): Promise<{ tunnels: net.Socket[]; ws: WorkerView[] }> {
  const tunnels: net.Socket[] = [];
  for (;;) {
    tunnels.push(...(await holdTunnels(1)));
    const ws = await activeIn(tunnels.length);
    if (ws.every((w) => w.active_flows > 0) || tunnels.length >= MOST_TUNNELS) return { tunnels, ws };
  }
}

/** Waits until the workers hold `n` active flows in all, and returns them. */
function activeIn(n: number): Promise<WorkerView[]> {
  return waitFor(async () => {
    const ws = await workers();
    return ws.reduce((sum, w) => sum + w.active_flows, 0) === n && ws;
  }, WAIT_MS, `${n} active flows in the workers`);
}

function closed(socket: net.Socket): Promise<void> {
  return new Promise((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));
}

async function endTunnels(sockets: net.Socket[]): Promise<void> {
  for (const s of sockets) s.destroy();
  await activeIn(0);
}

/** The parent pid of a process, from /proc. */
function parentOf(pid: number): number {
  return Number(/^PPid:\s+(\d+)$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
}

const failureOf = (e: JsonEnvelope): { code: string } | null => (e.payload['record'] as { result: { failure: { code: string } | null } }).result.failure;

test('connections through the SOCKS5 inbound land on both workers, child processes of the node that status lists', async () => {
  const { node, weir } = await setup();
  const { tunnels, ws } = await tunnelsInBoth();
  assert.is(ws.length, 2);
  assert.ok(ws.every((w) => w.active_flows > 0), `every worker runs flows: ${JSON.stringify(ws)}`);
  assert.equal(ws.map((w) => parentOf(w.pid)), [node.pid, node.pid]);
  const table = await weir('status');
  const lines = table.stdout.split('\n').filter((l) => /^(workers)?\s+\d+: pid \d+/.test(l));
  assert.equal(lines.map((l) => /pid (\d+)/.exec(l)![1]), ws.map((w) => String(w.pid)), table.stdout);
  await endTunnels(tunnels);
});

test('flows close by id ends a flow in whichever worker owns it, cancelled and manual', async () => {
  const { weir, events } = await setup();
  const { tunnels, ws } = await tunnelsInBoth();
  assert.ok(ws.every((w) => w.active_flows > 0), `both workers hold flows: ${JSON.stringify(ws)}`);
  const listed = await weir('flows', '--json');
  const ids = (JSON.parse(listed.stdout) as { flow_id: string }[]).map((r) => r.flow_id);
  assert.is(ids.length, tunnels.length);
  for (const id of ids) assert.is((await weir('flows', 'close', id)).code, 0);
  await Promise.all(tunnels.map(closed));
  const done = await waitForEvents(events, (es) => ofType(es, 'flow.completed').filter((e) => ids.includes(String(e.payload['flow_id']))).length === ids.length, WAIT_MS, 'every closed flow completed');
  const outcomes = ofType(done, 'flow.completed').filter((e) => ids.includes(String(e.payload['flow_id']))).map((e) => [e.payload['outcome'], e.payload['close_reason']]);
  assert.equal(outcomes, ids.map(() => ['cancelled', 'manual']));
  await activeIn(0);
});

/**
 * Short connections after a routing change until both workers ran some (their
 * started_flows grew; at most MOST_TUNNELS): each of them ends `outcome`.
 */
async function flowsEnd(outcome: string, what: string): Promise<void> {
  const { events, port, origin } = await setup();
  const before = await workers();
  const known = ofType(readJsonl(events), 'flow.completed').length;
  let after = before;
  let made = 0;
  while (made < MOST_TUNNELS && !after.every((w, i) => w.started_flows > before[i]!.started_flows)) {
    await curl(['--socks5-hostname', `127.0.0.1:${port}`, origin.url(`/bytes/10?${what}=${made++}`)]);
    after = await workers();
  }
  assert.equal(after.map((w, i) => w.started_flows > before[i]!.started_flows), [true, true], `both workers routed flows: ${JSON.stringify([before, after])}`);
  const done = await waitForEvents(events, (es) => ofType(es, 'flow.completed').length >= known + made, WAIT_MS, `${made} flows completed`);
  assert.equal(ofType(done, 'flow.completed').slice(known).map((e) => e.payload['outcome']), Array.from({ length: made }, () => outcome), what);
}

/** After `change`, flows in both workers end blocked; after `undo`, relayed again. */
async function blocksInBoth(change: () => Promise<void>, undo: () => Promise<void>, what: string): Promise<void> {
  await change();
  try {
    await flowsEnd('blocked', what);
  } finally {
    await undo();
  }
  await flowsEnd('direct_relayed', `${what}-undone`);
}

/** Runs `weir <args>` against the node and asserts it exits 0. */
async function weirOk(...args: string[]): Promise<void> {
  const { weir } = await setup();
  const result = await weir(...args);
  assert.is(result.code, 0, result.stderr);
}

test('a selector pick applies in every worker', async () => {
  await blocksInBoth(() => weirOk('select', 'proxy', 'block'), () => weirOk('select', 'proxy', 'direct'), 'select');
});

test('a mode change applies in every worker', async () => {
  await blocksInBoth(() => weirOk('mode', 'global', 'block'), () => weirOk('mode', 'rule'), 'global');
});

test('a reload\'s new rules apply in every worker', async () => {
  const { node } = await setup();
  const original = fs.readFileSync(node.configPath, 'utf8');
  const config = JSON.parse(original) as { route: { rules: unknown[] } };
  config.route.rules = [{ ip_cidr: ['127.0.0.0/8'], outbound: 'block' }];
  const reloadWith = (text: string) => async (): Promise<void> => {
    fs.writeFileSync(node.configPath, text);
    await weirOk('reload');
  };
  await blocksInBoth(reloadWith(JSON.stringify(config)), reloadWith(original), 'reload');
});

test('the events of both workers come out as one sequence without gaps, each flow id once per lifecycle event', async () => {
  const { events, port, origin } = await setup();
  // Until both workers have run flows (at most MOST_TUNNELS), so the sequence spans both.
  let made = 0;
  do await curl(['--socks5-hostname', `127.0.0.1:${port}`, origin.url(`/bytes/100?seq=${made++}`)]);
  while (made < MOST_TUNNELS && !(await workers()).every((w) => w.started_flows > 0));
  assert.ok((await workers()).every((w) => w.started_flows > 0), 'both workers ran flows');
  const all = await waitForEvents(events, (es) => ofType(es, 'flow.completed').length >= made, WAIT_MS, `${made} flows`);
  const sequences = all.map((e) => e.sequence);
  assert.equal(sequences, sequences.map((_, i) => sequences[0]! + i), 'consecutive sequences');
  const started = ofType(all, 'flow.started').map((e) => e.payload['flow_id']);
  assert.is(new Set(started).size, started.length, 'flow ids are unique across workers');
});

test('kill -9 of a worker: its open flows complete failed with WORKER_EXITED, a new worker starts, the proxy serves on', async () => {
  const { node, events, port, origin } = await setup();
  const { tunnels, ws } = await tunnelsInBoth();
  assert.ok(ws.every((w) => w.active_flows > 0), `both workers hold flows: ${JSON.stringify(ws)}`);
  const victim = ws.find((w) => w.active_flows > 0)!;
  const survivor = ws.find((w) => w.id !== victim.id)!;
  const known = ofType(readJsonl(events), 'flow.completed').length;
  process.kill(victim.pid, 'SIGKILL');

  const done = await waitForEvents(events, (es) => ofType(es, 'flow.completed').length >= known + victim.active_flows, WAIT_MS, 'the killed worker\'s flows completed');
  const ended = ofType(done, 'flow.completed').slice(known);
  assert.equal(
    ended.map((e) => [e.payload['outcome'], e.payload['close_reason'], failureOf(e)?.code]),
    Array.from({ length: victim.active_flows }, () => ['failed', 'upstream_error', 'WORKER_EXITED']),
  );
  const warnings = ofType(done, 'engine.warning').filter((e) => e.payload['code'] === 'worker_exited');
  assert.is(warnings.length, 1);
  assert.match(String(warnings[0]!.payload['message']), `pid ${victim.pid}`);

  const restarted = await waitFor(async () => {
    const now = await workers();
    return now.length === 2 && !now.some((w) => w.pid === victim.pid) && now;
  }, WAIT_MS, 'a new worker in place of the killed one');
  assert.equal(restarted.map((w) => parentOf(w.pid)), [node.pid, node.pid]);
  assert.is(restarted.find((w) => w.id === survivor.id)?.active_flows, survivor.active_flows, 'the other worker\'s flows go on');
  // Until the new worker has run flows too: it listens on the inbound the killed one did.
  const fresh = restarted.find((w) => w.id !== survivor.id)!;
  for (let i = 0; i < MOST_TUNNELS; i++) {
    const r = await curl(['--socks5-hostname', `127.0.0.1:${port}`, origin.url(`/bytes/10?after=${i}`)]);
    assert.is(r.code, 0, r.stderr);
    if ((await workers()).find((w) => w.id === fresh.id)!.started_flows > 0) break;
  }
  assert.ok((await workers()).find((w) => w.id === fresh.id)!.started_flows > 0, 'the new worker serves');
  const sequences = readJsonl(events).map((e) => e.sequence);
  assert.equal(sequences, sequences.map((_, i) => sequences[0]! + i), 'consecutive sequences across the kill');
  await endTunnels(tunnels);
});

test('an inbound port in use: the workers cannot listen, and the node exits saying why', async () => {
  const taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const port = (taken.address() as net.AddressInfo).port;
  const stateDir = tempDir();
  const base = e2eConfig({ stateDir, inbounds: [{ type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port }] });
  fs.writeFileSync(path.join(stateDir, 'weir.json'), JSON.stringify({ ...base, node: { ...(base['node'] as object), workers: 2 } }));
  try {
    const run = await runWeir(['run', '-c', path.join(stateDir, 'weir.json')]);
    assert.is(run.code, 1, run.stderr);
    assert.match(run.stderr, `weir: cannot start: inbound "socks-in" cannot listen on 127.0.0.1:${port}: EADDRINUSE`);
  } finally {
    taken.close();
  }
});

test('a stop ends the workers\' flows as a single process does, then engine.stopped, and leaves no worker', async () => {
  const { node, events } = await setup();
  const { tunnels, ws } = await tunnelsInBoth();
  assert.ok(ws.every((w) => w.active_flows > 0), `both workers hold flows: ${JSON.stringify(ws)}`);
  const known = ofType(readJsonl(events), 'flow.completed').length;
  assert.is(await node.stop('SIGTERM'), 0);
  const all = readJsonl(events);
  const ended = ofType(all, 'flow.completed').slice(known);
  assert.equal(ended.map((e) => [e.payload['outcome'], failureOf(e)]), tunnels.map(() => ['direct_relayed', null]));
  assert.is(all.at(-1)?.event_type, 'engine.stopped');
  for (const w of ws) assert.not.ok(fs.existsSync(`/proc/${w.pid}`), `worker ${w.pid} is gone`);
});

test.run();
