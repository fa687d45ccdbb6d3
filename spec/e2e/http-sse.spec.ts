import { EventSource } from 'eventsource';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope, FlowSnapshotPayload } from '../../streams/contract.js';
import { WAIT_MS } from '../support/far-bound.js';
import { waitFor } from '../support/wait-for.js';
import { SseClient } from '../support/event-clients.js';
import { assertContiguous, StreamSpec } from '../support/stream-spec.js';

const streams = new StreamSpec(test);

function sse(query: string, opts: { key?: string | null; lastEventId?: string } = {}): SseClient {
  return streams.track(new SseClient(`${streams.node.baseUrl}/api/v1/events/stream${query}`, { key: streams.node.apiKey, ...opts }));
}

test('the stream begins with flow.snapshot whose id is its watermark, then live events after it', async () => {
  const client = sse('');
  await waitFor(() => client.frames.length >= 1, WAIT_MS, 'snapshot');
  const first = client.frames[0]!;
  const snapshot = JSON.parse(first.data) as Envelope<FlowSnapshotPayload>;
  assert.is(first.event, 'flow.snapshot');
  assert.is(first.id, String(snapshot.payload.watermark));
  assert.is(snapshot.sequence, snapshot.payload.watermark);
  assert.equal(snapshot.payload.records, []);
  await streams.selectEvent();
  await waitFor(() => client.frames.some((f) => f.event === 'policy.selected'), WAIT_MS, 'live event');
  const live = client.envelopes.slice(1);
  assertContiguous(live.map((e) => e.sequence), snapshot.payload.watermark + 1);
  assert.equal(client.frames.slice(1).map((f) => f.id), live.map((e) => String(e.sequence)));
  assert.equal(client.frames.slice(1).map((f) => f.event), live.map((e) => e.event_type));
});

test('no flow.snapshot when the whitelist has no flow types, and only whitelisted types', async () => {
  const client = sse('?types=policy.selected,engine.warning');
  await new Promise((r) => setTimeout(r, 50));
  await streams.selectEvent();
  await waitFor(() => client.frames.length >= 1, WAIT_MS, 'policy.selected');
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(client.frames.map((f) => f.event), ['policy.selected']);
});

test('a whitelist with one flow type gets the snapshot first', async () => {
  const client = sse('?types=flow.completed');
  await waitFor(() => client.frames.length >= 1, WAIT_MS, 'snapshot');
  assert.equal(client.frames.map((f) => f.event), ['flow.snapshot']);
});

test('since resumes after a reconnect without gap or duplicate', async () => {
  const a = sse('?since=0');
  await streams.selectEvent();
  // The select's last event is its audit record, after policy.selected.
  await waitFor(() => a.frames.some((f) => f.event === 'control.audit'), WAIT_MS, 'first events');
  a.close();
  const seen = a.envelopes.filter((e) => e.event_type !== 'flow.snapshot').map((e) => e.sequence);
  const last = seen.at(-1)!;
  await streams.selectEvent();
  await streams.selectEvent();
  const b = sse(`?since=${last}`);
  await waitFor(() => b.frames.some((f) => f.event === 'flow.snapshot'), WAIT_MS, 'snapshot after replay');
  await streams.selectEvent();
  await waitFor(() => b.frames.findIndex((f) => f.event === 'flow.snapshot') < b.frames.length - 1, WAIT_MS, 'live after snapshot');
  const resumed = b.envelopes.filter((e) => e.event_type !== 'flow.snapshot').map((e) => e.sequence);
  assertContiguous([...seen, ...resumed], 1);
  // One parse of the frames: `envelopes` parses them anew on each read, so indexOf needs the same objects.
  const envelopes = b.envelopes;
  const snap = envelopes.find((e) => e.event_type === 'flow.snapshot')!;
  const replayed = envelopes.slice(0, envelopes.indexOf(snap)).map((e) => e.sequence);
  assert.is(replayed.at(-1), snap.sequence, 'the replay reaches the watermark');
});

test('Last-Event-ID resumes like since, and since wins when both are given', async () => {
  const events = await streams.node.api('/api/v1/events?since=0&limit=10000');
  const last = events.json.last_sequence as number;
  await streams.selectEvent();
  await streams.selectEvent();
  const byHeader = sse('?types=policy.selected', { lastEventId: String(last) });
  const both = sse(`?types=policy.selected&since=${last + 1}`, { lastEventId: '0' });
  await waitFor(() => byHeader.frames.length >= 2 && both.frames.length >= 1, WAIT_MS, 'replays');
  await new Promise((r) => setTimeout(r, 30));
  const selected = (await streams.node.api(`/api/v1/events?since=${last}&types=policy.selected`)).json.events as Envelope[];
  assert.equal(byHeader.envelopes.map((e) => e.sequence), selected.map((e) => e.sequence));
  assert.equal(both.envelopes.map((e) => e.sequence), selected.slice(1).map((e) => e.sequence));
});

test('a malformed since or type is refused with 400 before the stream starts', async () => {
  for (const query of ['?since=-1', '?since=x', '?types=flow.bogus']) {
    const res = await streams.node.api(`/api/v1/events/stream${query}`);
    assert.is(res.status, 400, query);
    assert.is(res.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    assert.is(res.json.code, 'BAD_REQUEST');
  }
});

test('HEAD answers the stream headers and ends', async () => {
  const res = await streams.node.api('/api/v1/events/stream', { method: 'HEAD' });
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  assert.is(res.text, '');
});

test('an idle stream gets keep-alive comments', async () => {
  const res = await fetch(`${streams.node.baseUrl}/api/v1/events/stream?types=engine.warning`, {
    headers: { authorization: `Bearer ${streams.node.apiKey}` },
  });
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  assert.is(res.headers.get('cache-control'), 'no-cache, no-transform');
  const reader = res.body!.getReader();
  let text = '';
  while (!text.includes(': keep-alive\n\n')) text += new TextDecoder().decode((await reader.read()).value);
  await reader.cancel();
  assert.is(text, ': keep-alive\n\n');
});

test('the stream ends on the node side when the client goes away', async () => {
  const streamLines = async (): Promise<number> =>
    (await streams.node.logText()).split('\n').filter((l) => l.includes('"path":"/api/v1/events/stream"')).length;
  const before = await streamLines();
  const client = sse('?types=policy.selected');
  await waitFor(() => client.readyState === EventSource.OPEN, WAIT_MS, 'connected');
  client.close();
  await waitFor(async () => (await streamLines()) !== before, WAIT_MS, 'the stream in the log', 20);
  assert.is(await streamLines(), before + 1);
});

test.run();
