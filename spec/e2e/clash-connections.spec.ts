import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WAIT_MS } from '../support/far-bound.js';
import { ofType, waitForEvents, type JsonEnvelope } from '../support/jsonl.js';
import { waitFor } from '../support/wait-for.js';
import { WsClient } from '../support/event-clients.js';
import { CLASH_KEY, clashFixture } from '../support/clash-fixture.js';

// Flows as Clash connections, and the other streams, against a real `weir run` with
// real downloads through it: the shapes the dashboards read, and closes that end flows.
const setup = clashFixture(test);
const open: WsClient[] = [];
test.after.each(() => {
  for (const client of open.splice(0)) client.close();
});

async function stream(path: string): Promise<WsClient> {
  const client = (await setup()).ws(path);
  open.push(client);
  return client;
}

/** The messages a client got so far, as the JSON objects they are. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- spec-side: each field is asserted
const messages = (client: WsClient): any[] => client.envelopes as any[];

/** The snapshot's connection to the origin by name (one download at a time runs in these tests). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- spec-side: each field is asserted
function originConnection(snapshot: any): any {
  return snapshot.connections.find((c: { metadata: { host: string } }) => c.metadata.host === 'localhost');
}

async function completedOf(events: string, flowId: string): Promise<JsonEnvelope> {
  const all = await waitForEvents(events, (es) => ofType(es, 'flow.completed').some((e) => e.payload['flow_id'] === flowId), WAIT_MS, `flow.completed of ${flowId}`);
  return ofType(all, 'flow.completed').find((e) => e.payload['flow_id'] === flowId)!;
}

test('WS /connections: a snapshot at once, then each second the live flow with its host, ports as strings, bytes and chains leaf first', async () => {
  const { origin, events } = await setup();
  const client = await stream('/connections');
  await waitFor(() => messages(client).length >= 1, WAIT_MS, 'the first snapshot');
  const download = setup().then((s) => s.liveDownload('ws-live'));
  const live = await waitFor(
    () => messages(client).map((m) => originConnection(m)).find((c) => c && c.download > 0),
    WAIT_MS,
    'a snapshot with the live download moving bytes',
  );
  assert.equal(Object.keys(live), ['id', 'metadata', 'upload', 'download', 'start', 'chains', 'rule', 'rulePayload']);
  assert.type(live.id, 'string');
  assert.equal(
    [live.metadata.network, live.metadata.type, live.metadata.host, live.metadata.destinationPort, live.metadata.inboundName],
    ['tcp', 'Mixed', 'localhost', String(origin.port), 'mixed-in'],
  );
  assert.match(live.metadata.sourcePort, /^\d+$/);
  assert.is(live.metadata.sourceIP, '127.0.0.1');
  for (const [field, value] of Object.entries(live.metadata)) assert.type(value, 'string', `metadata.${field}`);
  assert.ok(Number.isInteger(live.upload) && live.upload > 0);
  assert.is(new Date(live.start).toISOString(), live.start);
  assert.equal([live.chains, live.rule, live.rulePayload], [['direct', 'proxy'], 'Match', '']);

  (await download).stop();
  await (await download).done;
  const completed = await completedOf(events, live.id);
  const final = completed.payload['traffic'] as { bytes_down: number };
  assert.ok(final.bytes_down >= live.download);
  const after = messages(client).length;
  await waitFor(() => messages(client).length > after, WAIT_MS, 'a snapshot after the flow ended');
  assert.not.ok(messages(client).at(-1).connections.some((c: { id: string }) => c.id === live.id));

  // Every snapshot: connections an array, totals numbers that never went down.
  let last = { up: 0, down: 0 };
  for (const snapshot of messages(client)) {
    assert.ok(Array.isArray(snapshot.connections));
    assert.ok(snapshot.uploadTotal >= last.up && snapshot.downloadTotal >= last.down, 'totals never decrease');
    last = { up: snapshot.uploadTotal, down: snapshot.downloadTotal };
  }
  assert.ok(last.down >= final.bytes_down);
});

test('DELETE /connections/{id} ends the flow as flows.close does: cancelled, close_reason manual', async () => {
  const { call, events } = await setup();
  const download = (await setup()).liveDownload('close-one');
  const live = await waitFor(async () => originConnection((await call('/connections')).json), WAIT_MS, 'the flow in GET /connections');
  const closed = await call(`/connections/${live.id}`, { method: 'DELETE' });
  assert.equal([closed.status, closed.text], [204, '']);
  const completed = await completedOf(events, live.id);
  assert.equal([completed.payload['outcome'], completed.payload['close_reason']], ['cancelled', 'manual']);
  await download.done;
  // A flow that ended already: 204 all the same (dashboards close what they saw a second ago).
  assert.is((await call(`/connections/${live.id}`, { method: 'DELETE' })).status, 204);
});

test('DELETE /connections closes every active flow', async () => {
  const { call, events } = await setup();
  const downloads = [(await setup()).liveDownload('all-1'), (await setup()).liveDownload('all-2')];
  const ids = await waitFor(
    async () => {
      const { connections } = (await call('/connections')).json;
      return connections.length >= 2 ? (connections as { id: string }[]).map((c) => c.id) : null;
    },
    WAIT_MS,
    'both flows in GET /connections',
  );
  assert.is((await call('/connections', { method: 'DELETE' })).status, 204);
  for (const id of ids) {
    const completed = await completedOf(events, id);
    assert.equal([completed.payload['outcome'], completed.payload['close_reason']], ['cancelled', 'manual']);
  }
  await Promise.all(downloads.map((d) => d.done));
  assert.equal((await call('/connections')).json.connections, []);
});

test('/traffic gives the bytes of each second over WebSocket and as a chunked body; /memory starts at 0, then the RSS', async () => {
  const { base } = await setup();
  const download = (await setup()).liveDownload('traffic');
  const traffic = await stream('/traffic');
  const moving = await waitFor(() => messages(traffic).find((m) => m.down > 0), WAIT_MS, 'a second with bytes down');
  assert.equal(Object.keys(moving), ['up', 'down']);
  for (const m of messages(traffic)) assert.ok(Number.isInteger(m.up) && m.up >= 0 && Number.isInteger(m.down) && m.down >= 0);
  download.stop();
  await download.done;

  const memory = await stream('/memory');
  await waitFor(() => messages(memory).length >= 2, WAIT_MS, 'two memory messages');
  assert.equal(messages(memory)[0], { inuse: 0, oslimit: 0 });
  assert.ok(messages(memory)[1].inuse > 0);
  assert.is(messages(memory)[1].oslimit, 0);

  // yacd's fallback when its WebSocket fails: fetch and read newline-ended JSON.
  const hangUp = new AbortController();
  const res = await fetch(`${base}/traffic`, { headers: { authorization: `Bearer ${CLASH_KEY}` }, signal: hangUp.signal });
  assert.is(res.status, 200);
  const reader = res.body!.getReader();
  const { value } = await reader.read();
  hangUp.abort();
  assert.match(new TextDecoder().decode(value), /^\{"up":\d+,"down":\d+\}\n/);
});

test('/logs sends the log lines at or above ?level= as {type, payload}; an unknown level is refused', async () => {
  const { call, controlPort } = await setup();
  const info = await stream('/logs?level=info');
  const errors = await stream('/logs?level=error');
  await waitFor(() => info.ws.readyState === info.ws.OPEN && errors.ws.readyState === errors.ws.OPEN, WAIT_MS, 'both open');
  // A refused request is logged at info.
  await call('/api/v1/no-such-thing');
  const line = await waitFor(() => messages(info).find((m) => m.payload.includes('/api/v1/no-such-thing')), WAIT_MS, 'the log line');
  assert.equal(Object.keys(line), ['type', 'payload']);
  assert.is(line.type, 'info');
  assert.match(line.payload, /^control request /);
  // The same line reached every reader at once: the error-level one let it by.
  assert.not.ok(messages(errors).some((m) => m.payload.includes('/api/v1/no-such-thing')));
  const bad = new WsClient(`ws://127.0.0.1:${controlPort}/logs?level=loud&token=${CLASH_KEY}`);
  await waitFor(() => bad.unexpected, WAIT_MS, 'the refusal');
  assert.is(bad.unexpected, 400);
});

test.run();
