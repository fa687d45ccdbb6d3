import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope, FlowRecord } from '../../streams/contract.js';
import { curl } from '../support/curl.js';
import { WAIT_MS } from '../support/far-bound.js';
import { startOrigin, type Origin } from '../support/origin.js';
import { waitFor } from '../support/wait-for.js';
import { runWeir } from '../support/weir-bin.js';
import { startIpcNode, type IpcNode } from './support-ipc.js';

let node: IpcNode;
let origin: Origin;

test.before(async () => {
  origin = await startOrigin();
  node = await startIpcNode();
});

test.after(async () => {
  await node.stop();
  await origin.close();
});

const weir = (...args: string[]) => runWeir([...args, '--ipc', node.socketPath]);

function published(type: string): Envelope<Record<string, unknown>>[] {
  return node.published.filter((e) => e.event_type === type) as Envelope<Record<string, unknown>>[];
}

test('status --json has log_level and log_files; the table shows them too', async () => {
  const json = await weir('status', '--json');
  assert.is(json.code, 0, json.stderr);
  const runtime = JSON.parse(json.stdout) as Record<string, unknown>;
  assert.equal([runtime['log_level'], runtime['log_files'], runtime['pid']], ['info', [node.logFile], process.pid]);
  const table = await weir('status');
  assert.is(table.code, 0);
  assert.match(table.stdout, /^log_level +info$/m);
  assert.match(table.stdout, new RegExp(`^log_files +${node.logFile}$`, 'm'));
});

test('flows lists a live download and flows close ends it with cancelled/manual', async () => {
  const download = curl(['--socks5-hostname', `127.0.0.1:${node.proxyPort}`, origin.url('/silent?cli-close')]);
  const flow = await waitFor(
    () => node.engine.table.activeRecords().find((r) => r.state === 'active' && r.target.port === origin.port),
    WAIT_MS,
    'the download flow',
  );
  const list = await weir('flows');
  assert.is(list.code, 0);
  const [header, row] = list.stdout.trimEnd().split('\n');
  assert.match(header ?? '', /^FLOW_ID +STATE +INBOUND +TARGET +OUTBOUND +UP +DOWN +AGE$/);
  assert.match(row ?? '', new RegExp(`^${flow.flow_id} +active +mixed-in +127\\.0\\.0\\.1:${origin.port} +direct +`));
  const listed = JSON.parse((await weir('flows', '--json')).stdout) as FlowRecord[];
  assert.equal(listed.map((r) => r.flow_id), [flow.flow_id]);

  const close = await weir('flows', 'close', flow.flow_id);
  assert.equal([close.code, close.stdout], [0, `closing flow ${flow.flow_id}\n`]);
  assert.is.not((await download).code, 0, 'curl sees its download cut');
  const completed = await waitFor(
    () => published('flow.completed').find((e) => e.payload['flow_id'] === flow.flow_id),
    WAIT_MS,
    'flow.completed',
  );
  assert.equal((completed.payload['record'] as FlowRecord).result, { outcome: 'cancelled', close_reason: 'manual', failure: null });
});

test('flows close of an unknown flow is refused with exit 4', async () => {
  const close = await weir('flows', 'close', 'no-such-flow');
  assert.equal([close.code, close.stderr], [4, 'weir: no active flow "no-such-flow"\n']);
});

test('select of a non-member exits 4 with the reason and emits nothing', async () => {
  const before = published('policy.selected').length;
  const refused = await weir('select', 'proxy', 'ghost');
  assert.equal([refused.code, refused.stdout, refused.stderr], [4, '', 'weir: "ghost" is not a direct member of selector "proxy"\n']);
  const policies = JSON.parse((await weir('policies', '--json')).stdout) as { tag: string; selected: string }[];
  assert.equal(policies.map((p) => [p.tag, p.selected]), [['proxy', 'direct']]);
  assert.is(published('policy.selected').length, before);
});

test('select of a member switches the selector and emits policy.selected', async () => {
  const done = await weir('select', 'proxy', 'block');
  assert.equal([done.code, done.stdout], [0, 'proxy: block (was direct)\n']);
  const event = await waitFor(() => published('policy.selected').at(-1), WAIT_MS, 'policy.selected');
  assert.equal(event.payload, { policy_tag: 'proxy', policy_kind: 'selector', selected: 'block', previous: 'direct' });
  const table = await weir('policies');
  assert.equal(table.stdout, 'TAG    KIND      SELECTED  MEMBERS\nproxy  selector  block     direct, block\n');
  await weir('select', 'proxy', 'direct');
});

test.run();
