import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { curl } from '../support/curl.js';
import { ofType, waitForEvents } from '../support/jsonl.js';
import { logLines } from '../support/log-lines.js';
import { e2eConfig, eventsPath } from '../support/node-config.js';
import { startOrigin, type Origin } from '../support/origin.js';
import { startNode, type WeirNode } from '../support/start-node.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

// Distinctive, so a leak into the log is found by a plain search.
const ALICE_PW = 'alice-Pw-access-3d9f0c';

interface AccessFields {
  flow_id: string;
  network: string;
  inbound: string;
  source: string | null;
  user: string | null;
  target: string;
  outbound: string | null;
  outcome: string;
  code: string | null;
  bytes_up: number;
  bytes_down: number;
  duration_ms: number;
}

async function startAccessNode(access: boolean | undefined): Promise<{ node: WeirNode; port: number; events: string }> {
  const stateDir = tempDir('weir-access-');
  const config = e2eConfig({
    stateDir,
    inbounds: [{ type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port: 0, users: [{ username: 'alice', password: ALICE_PW }] }],
  });
  if (access !== undefined) config['log'] = { level: 'info', access };
  const node = await startNode(config);
  return { node, port: node.ports['socks-in']!, events: eventsPath(stateDir) };
}

/** Two relayed flows (64 and 1000 bytes) and one to a name that does not resolve. */
async function threeFlows(origin: Origin, port: number): Promise<void> {
  const via = ['--socks5-hostname', `127.0.0.1:${port}`, '--proxy-user', `alice:${ALICE_PW}`, '-o', '/dev/null'];
  assert.is((await curl([...via, origin.url('/bytes/64')])).code, 0);
  assert.is((await curl([...via, origin.url('/bytes/1000')])).code, 0);
  assert.is.not((await curl([...via, 'http://no-such-host.invalid/'])).code, 0, 'the unresolvable name fails');
}

function accessLines(stdout: string): { msg: string; level: number; access: AccessFields }[] {
  return logLines(stdout).filter((l) => l['access'] !== undefined) as unknown as { msg: string; level: number; access: AccessFields }[];
}

test('one info access line per completed flow, a DNS failure with its code, the user without the password', async () => {
  const origin = await startOrigin();
  const { node, port, events } = await startAccessNode(undefined);
  try {
    await threeFlows(origin, port);
    const completed = ofType(await waitForEvents(events, (e) => ofType(e, 'flow.completed').length === 3, 10_000, 'three flow.completed'), 'flow.completed');
    assert.is(await node.stop(), 0);
    const lines = accessLines(node.stdout());
    assert.is(lines.length, 3, node.stdout());
    assert.equal(
      lines.map((l) => l.access.flow_id).sort(),
      completed.map((e) => (e.payload['record'] as { flow_id: string }).flow_id).sort(),
    );
    // Found by what they carry: a flow's line is written when it completes, not when its curl returned.
    const unresolved = lines.find((l) => l.access.code !== null);
    const [small, large] = lines.filter((l) => l.access.code === null).sort((a, b) => a.access.bytes_down - b.access.bytes_down);
    for (const line of lines) {
      assert.is(line.level, 30, 'info');
      assert.is(line.access.inbound, 'socks-in');
      assert.is(line.access.user, 'alice');
      assert.is(line.access.network, 'tcp');
      assert.match(line.access.source ?? '', /^127\.0\.0\.1:\d+$/);
      assert.type(line.access.duration_ms, 'number');
    }
    const originTarget = new URL(origin.url('/')).host;
    assert.is(small!.access.target, originTarget);
    assert.is(small!.access.outbound, 'direct');
    assert.is(small!.access.outcome, 'direct_relayed');
    assert.is(small!.access.code, null);
    assert.ok(small!.access.bytes_down > 64 && large!.access.bytes_down > 1000, 'bytes down include the answers');
    assert.ok(small!.access.bytes_up > 0);
    assert.match(small!.msg, new RegExp(`^socks-in 127\\.0\\.0\\.1:\\d+ \\(alice\\) -> ${originTarget.replace(/\./g, '\\.')} via direct: direct_relayed, up \\d+ B, down \\d+ B, \\d+ ms$`));
    assert.is(unresolved!.access.target, 'no-such-host.invalid:80');
    assert.is(unresolved!.access.outcome, 'failed');
    assert.is(unresolved!.access.code, 'DNS_FAILED');
    assert.match(unresolved!.msg, / -> no-such-host\.invalid:80 via direct: failed DNS_FAILED, /);
    assert.not.ok(node.stdout().includes(ALICE_PW) || node.stderr().includes(ALICE_PW), 'the password is never logged');
  } finally {
    await node.stop();
    await origin.close();
  }
});

test('log.access false writes no access line', async () => {
  const origin = await startOrigin();
  const { node, port, events } = await startAccessNode(false);
  try {
    await threeFlows(origin, port);
    await waitForEvents(events, (e) => ofType(e, 'flow.completed').length === 3, 10_000, 'three flow.completed');
    assert.is(await node.stop(), 0);
    assert.is(accessLines(node.stdout()).length, 0, node.stdout());
    assert.ok(logLines(node.stdout()).some((l) => l['msg'] === 'engine started'), 'the node logs at info otherwise');
  } finally {
    await node.stop();
    await origin.close();
  }
});

test('log.access set to false by a reload takes effect for the next flows', async () => {
  const origin = await startOrigin();
  const { node, port, events } = await startAccessNode(undefined);
  try {
    await threeFlows(origin, port);
    await waitForEvents(events, (e) => ofType(e, 'flow.completed').length === 3, 10_000, 'three flow.completed');
    const config = JSON.parse(fs.readFileSync(node.configPath, 'utf8')) as Record<string, unknown>;
    fs.writeFileSync(node.configPath, JSON.stringify({ ...config, log: { level: 'info', access: false } }));
    process.kill(node.pid, 'SIGHUP');
    const reloaded = (): Record<string, unknown> | undefined => logLines(node.stdout()).find((l) => String(l['msg']).startsWith('configuration reloaded'));
    const applied = (await waitFor(reloaded, 10_000, 'the reload'))['applied'] as { changed: boolean; restart_required: string[] };
    assert.equal([applied.changed, applied.restart_required], [true, []], 'log.access is hot and a change');
    await threeFlows(origin, port);
    await waitForEvents(events, (e) => ofType(e, 'flow.completed').length === 6, 10_000, 'six flow.completed');
    assert.is(await node.stop(), 0);
    assert.is(accessLines(node.stdout()).length, 3, node.stdout());
  } finally {
    await node.stop();
    await origin.close();
  }
});

test.run();
