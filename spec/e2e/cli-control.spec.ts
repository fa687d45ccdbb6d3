import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FlowRecord } from '../../streams/contract.js';
import { curl } from '../support/curl.js';
import { WAIT_MS } from '../support/far-bound.js';
import { knownFlows, nextFlow, nextRoutedFlowId } from '../support/flow-lifecycle.js';
import { ofType, readJsonl, waitForEvents, type JsonEnvelope } from '../support/jsonl.js';
import { E2E_NODE_ID } from '../support/node-config.js';
import { runWeir } from '../support/weir-bin.js';
import { cliFixture } from '../support/cli-fixture.js';

const setup = cliFixture(test);

/** Events of `type` in the sink once a stats.sampled published after this call is there too: none is still on its way. */
async function settledEvents(events: string, type: string): Promise<JsonEnvelope[]> {
  const samples = ofType(readJsonl(events), 'stats.sampled').length;
  const all = await waitForEvents(events, (es) => ofType(es, 'stats.sampled').length > samples, WAIT_MS, 'a later stats.sampled');
  return all.filter((e) => e.event_type === type);
}

test('status --json has log_level, log_files and the pid; the table shows them too', async () => {
  const { node, weir } = await setup();
  const json = await weir('status', '--json');
  assert.is(json.code, 0, json.stderr);
  const runtime = JSON.parse(json.stdout) as Record<string, unknown>;
  assert.equal([runtime['log_level'], runtime['log_files'], runtime['pid']], ['info', ['stdout'], node.pid]);
  const table = await weir('status');
  assert.is(table.code, 0);
  assert.match(table.stdout, /^log_level +info$/m);
  assert.match(table.stdout, /^log_files +stdout$/m);
});

test('status reads at a glance: one fact per line in units, then the sinks as a table', async () => {
  const { node, origin, events, via, weir } = await setup();
  const known = knownFlows(events);
  assert.is((await curl([...via, origin.url('/bytes/2048?case=cli-status')])).code, 0);
  await nextFlow(events, known);
  const result = await weir('status');
  assert.equal([result.code, result.stderr], [0, '']);
  const [facts, sinks] = result.stdout.split('\n\n');
  const lines = facts!.split('\n');
  assert.equal(
    lines.map((l) => l.split(/ {2,}/)[0]),
    ['node', 'version', 'pid', 'uptime', 'mode', 'config', 'log_level', 'log_files', 'inbounds', 'rss', 'heap', 'flows', 'outcomes', 'traffic'],
  );
  const value = (key: string): string => lines.find((l) => l.startsWith(`${key} `))!.split(/ {2,}/)[1]!;
  assert.equal([value('node'), value('pid'), value('mode'), value('config')], [E2E_NODE_ID, String(node.pid), 'rule', node.configPath]);
  assert.match(value('uptime'), /^(\d+s|\d+m \d\ds|\d+h \d\dm)$/);
  assert.match(value('rss'), /^\d+\.\d MiB$/);
  assert.match(value('heap'), /^\d+\.\d MiB of \d+\.\d MiB$/);
  assert.match(value('flows'), /^\d+ active, [\d,]+ started$/);
  assert.match(value('outcomes'), /^[\d,]+ completed, [\d,]+ failed, [\d,]+ blocked$/);
  // At least the 2 KiB body came down: the traffic is in units, not raw bytes.
  assert.match(value('traffic'), /^[\d.]+ (B|KiB) up, \d+\.\d (KiB|MiB) down$/);
  const [header, row, ...more] = sinks!.trimEnd().split('\n').map((l) => l.split(/ {2,}/));
  assert.equal([header, row?.slice(0, 3), row?.slice(5), more], [
    ['SINK', 'TYPE', 'STATE', 'PENDING', 'DELIVERED', 'FAILED', 'LAST_ERROR'],
    ['archive', 'jsonl', 'ok'],
    ['0', '-'],
    [],
  ]);
  assert.ok(row!.slice(3, 5).every((n) => /^[\d,]+$/.test(n)), row!.join(' '));
});

test('weir --version prints the version status reports: package version and build commit', async () => {
  const { weir } = await setup();
  const runtime = JSON.parse((await weir('status', '--json')).stdout) as { version: string };
  const pkg = JSON.parse(fs.readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
  assert.ok(runtime.version.startsWith(`${pkg.version}+`), runtime.version);
  assert.equal(await runWeir(['--version']), { code: 0, stdout: `${runtime.version}\n`, stderr: '' });
});

test('flows lists a live download and flows close ends it with cancelled/manual', async () => {
  const { origin, events, via, weir } = await setup();
  const known = knownFlows(events);
  const download = curl([...via, origin.url('/silent?case=cli-close')]);
  const flowId = await nextRoutedFlowId(events, known);
  const list = await weir('flows');
  assert.is(list.code, 0);
  const [header, row] = list.stdout.trimEnd().split('\n');
  assert.match(header ?? '', /^FLOW_ID +STATE +INBOUND +TARGET +OUTBOUND +UP +DOWN +AGE$/);
  assert.match(row ?? '', new RegExp(`^${flowId} +active +mixed-in +127\\.0\\.0\\.1:${origin.port} +direct +`));
  const listed = JSON.parse((await weir('flows', '--json')).stdout) as FlowRecord[];
  assert.equal(listed.map((r) => r.flow_id), [flowId]);

  const close = await weir('flows', 'close', flowId);
  assert.equal([close.code, close.stdout], [0, `closing flow ${flowId}\n`]);
  assert.is.not((await download).code, 0, 'curl sees its download cut');
  const all = await waitForEvents(
    events,
    (es) => es.some((e) => e.event_type === 'flow.completed' && e.payload['flow_id'] === flowId),
    WAIT_MS,
    'flow.completed',
  );
  const completed = all.find((e) => e.event_type === 'flow.completed' && e.payload['flow_id'] === flowId)!;
  assert.equal((completed.payload['record'] as FlowRecord).result, { outcome: 'cancelled', close_reason: 'manual', failure: null });
});

test('flows close of an unknown flow is refused with exit 4', async () => {
  const { weir } = await setup();
  const close = await weir('flows', 'close', 'no-such-flow');
  assert.equal([close.code, close.stderr], [4, 'weir: no active flow "no-such-flow"\n']);
});

test('select of a non-member exits 4 with the reason and emits nothing', async () => {
  const { events, weir } = await setup();
  const before = ofType(readJsonl(events), 'policy.selected').length;
  const refused = await weir('select', 'proxy', 'ghost');
  assert.equal([refused.code, refused.stdout, refused.stderr], [4, '', 'weir: "ghost" is not a direct member of selector "proxy"\n']);
  const policies = JSON.parse((await weir('policies', '--json')).stdout) as { tag: string; selected: string }[];
  assert.equal(policies.map((p) => [p.tag, p.selected]), [['proxy', 'direct']]);
  assert.is((await settledEvents(events, 'policy.selected')).length, before);
});

test('select of a member switches the selector and emits policy.selected', async () => {
  const { events, weir } = await setup();
  const before = ofType(readJsonl(events), 'policy.selected').length;
  const done = await weir('select', 'proxy', 'block');
  assert.equal([done.code, done.stdout], [0, 'proxy: block (was direct)\n']);
  const all = await waitForEvents(events, (es) => ofType(es, 'policy.selected').length > before, WAIT_MS, 'policy.selected');
  assert.equal(ofType(all, 'policy.selected').at(-1)!.payload, { policy_tag: 'proxy', policy_kind: 'selector', selected: 'block', previous: 'direct' });
  const table = await weir('policies');
  assert.equal(table.stdout, 'TAG    KIND      SELECTED  MEMBERS\nproxy  selector  block     direct, block\n');
  await weir('select', 'proxy', 'direct');
});

test('reload refuses a route to an outbound added to the file since the start, and the old route stays', async () => {
  const { node, origin, events, via, weir } = await setup();
  const original = fs.readFileSync(node.configPath, 'utf8');
  const edited = JSON.parse(original) as { outbounds: object[]; route: { rules?: object[] } };
  edited.outbounds.push({ type: 'direct', tag: 'direct2' });
  edited.route.rules = [{ port: [origin.port], outbound: 'direct2' }];
  fs.writeFileSync(node.configPath, JSON.stringify(edited));
  try {
    const refused = await weir('reload');
    assert.equal([refused.code, refused.stderr], [4, 'weir: route.rules[0].outbound: outbound "direct2" is not running: outbounds change only on restart\n']);
  } finally {
    fs.writeFileSync(node.configPath, original);
  }
  const known = knownFlows(events);
  assert.is((await curl([...via, origin.url('/bytes/16?case=after-refused-reload')])).code, 0);
  const record = (await nextFlow(events, known)).completed.payload['record'] as FlowRecord;
  assert.equal([record.result?.outcome, record.path.outbound?.tag], ['direct_relayed', 'direct']);
});

test('reload of restart-only changes names them, warns, and the node runs on as it started', async () => {
  const { node, origin, events, via, weir } = await setup();
  const original = fs.readFileSync(node.configPath, 'utf8');
  const edited = JSON.parse(original) as { node: { id: string }; flows?: object; inbounds: { port?: number }[]; route: { rules?: object[] } };
  edited.node.id = 'renamed-node';
  edited.flows = { idle_timeout_s: 7 };
  edited.inbounds[0]!.port = 1;
  fs.writeFileSync(node.configPath, JSON.stringify(edited));
  const warnings = ofType(readJsonl(events), 'engine.warning').length;
  try {
    const unchanged = await weir('reload');
    assert.equal([unchanged.code, unchanged.stdout], [0, 'configuration unchanged\nrestart needed for: node, flows, inbounds\n']);
    edited.route.rules = [{ port: [1], outbound: 'block' }];
    fs.writeFileSync(node.configPath, JSON.stringify(edited));
    const json = await weir('reload', '--json');
    const applied = JSON.parse(json.stdout) as { changed: boolean; route_changed: boolean; restart_required: string[] };
    assert.equal([applied.changed, applied.route_changed, applied.restart_required], [true, true, ['node', 'flows', 'inbounds']]);
  } finally {
    fs.writeFileSync(node.configPath, original);
  }
  const all = await waitForEvents(events, (es) => ofType(es, 'engine.warning').length >= warnings + 2, WAIT_MS, 'two engine.warning');
  assert.equal(ofType(all, 'engine.warning').slice(warnings).map((e) => e.payload), [
    { code: 'config_restart_required', message: 'the config changes node, flows, inbounds, which take effect only on a restart; the node runs on the values it started with' },
    { code: 'config_restart_required', message: 'the config changes node, flows, inbounds, which take effect only on a restart; the node runs on the values it started with' },
  ]);
  const runtime = JSON.parse((await weir('status', '--json')).stdout) as { node_id: string };
  assert.is(runtime.node_id, E2E_NODE_ID, 'the node keeps its id');
  const known = knownFlows(events);
  assert.is((await curl([...via, origin.url('/bytes/16?case=after-restart-only-reload')])).code, 0, 'the running inbound still serves');
  const completed = (await nextFlow(events, known)).completed;
  assert.is(completed.source_id, E2E_NODE_ID, 'sinks still write the running node id');
  // The restored file takes the route back: only that is a change.
  const back = JSON.parse((await weir('reload', '--json')).stdout) as { changed: boolean; restart_required: string[] };
  assert.equal([back.changed, back.restart_required], [true, []]);
});

test.run();
