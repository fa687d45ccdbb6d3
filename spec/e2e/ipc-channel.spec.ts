import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { curl, type CurlResult } from '../support/curl.js';
import { WAIT_MS } from '../support/far-bound.js';
import { startOrigin, type Origin } from '../support/origin.js';
import { assertStatsFields } from '../support/stats-fields.js';
import { waitFor } from '../support/wait-for.js';
import { LineClient, type Line } from '../unit/ipc/line-client.js';
import { startIpcNode, type IpcNode } from '../support/ipc-node.js';
import { loudBefore } from '../support/loud-before.js';

let node: IpcNode;
let origin: Origin;

loudBefore(test, async () => {
  origin = await startOrigin();
  node = await startIpcNode();
});

test.after(async () => {
  await node.stop();
  await origin.close();
});

/** Starts a download that never ends through the SOCKS5 side and returns its active flow. */
async function silentDownload(): Promise<{ flowId: string; done: Promise<CurlResult> }> {
  const before = new Set(node.engine.table.activeRecords().map((r) => r.flow_id));
  const done = curl(['--socks5-hostname', `127.0.0.1:${node.proxyPort}`, origin.url(`/silent?${Math.random()}`)]);
  const record = await waitFor(
    () => node.engine.table.activeRecords().find((r) => !before.has(r.flow_id) && r.state === 'active'),
    WAIT_MS,
    'an active flow',
  );
  return { flowId: record.flow_id, done };
}

const isType = (type: string) => (line: Line) => line['event_type'] === type;
const payloadOf = (line: Line): Record<string, unknown> => line['payload'] as Record<string, unknown>;

test('creates the socket with mode 0600', () => {
  const stat = fs.statSync(node.socketPath);
  assert.ok(stat.isSocket());
  assert.is(stat.mode & 0o777, 0o600);
});

test('subscribe: ACK, then flow.snapshot of the active flows, then live events after its watermark', async () => {
  const flow = await silentDownload();
  const client = await LineClient.connect(node.socketPath);
  client.send({ id: 1, type: 'subscribe' });
  assert.equal(await client.next(), { type: 'ack', subscribed: ['*'], id: 1 });
  const snapshot = await client.next();
  const { watermark, records } = payloadOf(snapshot) as { watermark: number; records: { flow_id: string; state: string }[] };
  assert.is(snapshot['event_type'], 'flow.snapshot');
  assert.is(snapshot['sequence'], watermark);
  assert.equal(records.map((r) => [r.flow_id, r.state]), [[flow.flowId, 'active']]);

  client.send({ id: 2, op: 'flows.close', flow_id: flow.flowId });
  assert.equal(await client.nextMatching((l) => l['type'] === 'result'), {
    type: 'result',
    op: 'flows.close',
    result: { flow_id: flow.flowId, closing: true },
    id: 2,
  });
  const completed = await client.nextMatching((l) => isType('flow.completed')(l) && payloadOf(l)['flow_id'] === flow.flowId);
  assert.ok((completed['sequence'] as number) > watermark);
  const record = payloadOf(completed)['record'] as { result: unknown };
  assert.equal(record.result, { outcome: 'cancelled', close_reason: 'manual', failure: null });
  assert.is.not((await flow.done).code, 0);
  client.close();
});

test('a whitelist gets only its types, and the snapshot only when it names flow types', async () => {
  const flows = await LineClient.connect(node.socketPath);
  const stats = await LineClient.connect(node.socketPath);
  flows.send({ type: 'subscribe', events: ['flow.completed'] });
  stats.send({ type: 'subscribe', events: ['stats.sampled'] });
  assert.equal(await flows.next(), { type: 'ack', subscribed: ['flow.completed'] });
  assert.equal(await stats.next(), { type: 'ack', subscribed: ['stats.sampled'] });
  assert.is((await flows.next())['event_type'], 'flow.snapshot');
  assert.is((await stats.next())['event_type'], 'stats.sampled');

  const download = await curl(['--socks5-hostname', `127.0.0.1:${node.proxyPort}`, origin.url('/bytes/100')]);
  assert.is(download.code, 0);
  const completed = await flows.next();
  assert.is(completed['event_type'], 'flow.completed');
  // A stats tick later, nothing of another type has arrived on either stream.
  await stats.next();
  assert.equal(flows.pending.map((l) => l['event_type']), []);
  assert.ok(stats.pending.every(isType('stats.sampled')));
  flows.close();
  stats.close();
});

test('the stats query answers with every statistics field', async () => {
  const client = await LineClient.connect(node.socketPath);
  client.send({ stats: {} });
  const reply = await client.next();
  const stats = reply['stats'] as Record<string, unknown>;
  assert.equal(Object.keys(reply), ['type', 'stats']);
  assert.is(reply['type'], 'stats');
  assertStatsFields(stats);
  client.close();
});

test('a garbage line gets an error reply and the same connection answers the next request', async () => {
  const client = await LineClient.connect(node.socketPath);
  client.send('{"op": flows.list}\n');
  assert.equal(await client.next(), { type: 'error', code: 'BAD_REQUEST', message: 'the line is not valid JSON' });
  client.send({ id: 'after', op: 'status' });
  const status = await client.next();
  const runtime = status['result'] as Record<string, unknown>;
  assert.equal([status['type'], status['id'], runtime['log_level'], runtime['log_files']], ['result', 'after', 'info', [node.logFile]]);
  client.close();
});

test('ipc.connected and ipc.disconnected carry active and pipe, and error only when abnormal', async () => {
  const watcher = await LineClient.connect(node.socketPath);
  watcher.send({ type: 'subscribe', events: ['ipc.connected', 'ipc.disconnected'] });
  await watcher.next();
  const next = async (): Promise<[unknown, unknown]> => {
    const e = await watcher.next();
    return [e['event_type'], payloadOf(e)];
  };
  const pipe = node.socketPath;
  const polite = await LineClient.connect(node.socketPath);
  assert.equal(await next(), ['ipc.connected', { active: 2, pipe }]);
  polite.stream.end();
  assert.equal(await next(), ['ipc.disconnected', { active: 1, pipe }]);

  const rude = await LineClient.connect(node.socketPath);
  assert.equal(await next(), ['ipc.connected', { active: 2, pipe }]);
  rude.send(`{"pad":"${'x'.repeat(1_100_000)}"}\n`);
  assert.equal(await rude.next(), { type: 'error', code: 'BODY_TOO_LARGE', message: 'a request line may hold at most 1048576 bytes' });
  assert.equal(await next(), ['ipc.disconnected', { active: 1, pipe, error: 'line_too_long' }]);
  watcher.close();
});

test.run();
