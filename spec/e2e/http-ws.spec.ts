import net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FlowSnapshotPayload, Envelope } from '../../streams/contract.js';
import { waitFor, WsClient } from './support-http-clients.js';
import { startNode, type TestNode } from './support-http.js';

let node: TestNode;
const open: WsClient[] = [];

test.before(async () => {
  node = await startNode({ streamLimits: { heartbeatMs: 100 } });
});
test.after.each(() => {
  for (const c of open.splice(0)) c.close();
});
test.after(async () => {
  await node.stop();
});

function ws(query: string, auth: 'header' | 'token' = 'header'): WsClient {
  const client =
    auth === 'header'
      ? new WsClient(`${node.wsUrl}/api/v1/events/ws${query}`, { key: node.apiKey })
      : new WsClient(`${node.wsUrl}/api/v1/events/ws${query}${query ? '&' : '?'}token=${node.apiKey}`);
  open.push(client);
  return client;
}

let flip = false;
async function selectEvent(): Promise<void> {
  flip = !flip;
  const res = await node.api('/api/v1/policies/proxy/select', { method: 'POST', body: { member: flip ? 'block' : 'direct' } });
  assert.is(res.status, 200);
}

function assertContiguous(seqs: number[], from: number): void {
  assert.equal(seqs, seqs.map((_, i) => from + i), `sequences ${seqs.join(',')} run on from ${from}`);
}

test('the first message is flow.snapshot at its watermark, then every live event after it', async () => {
  const client = ws('');
  await waitFor('snapshot', () => client.envelopes.length >= 1);
  const snapshot = client.envelopes[0] as Envelope<FlowSnapshotPayload>;
  assert.is(snapshot.event_type, 'flow.snapshot');
  assert.is(snapshot.sequence, snapshot.payload.watermark);
  await selectEvent();
  await waitFor('live event', () => client.envelopes.some((e) => e.event_type === 'policy.selected'));
  assertContiguous(client.envelopes.slice(1).map((e) => e.sequence), snapshot.payload.watermark + 1);
});

test('no flow.snapshot when the whitelist has no flow types', async () => {
  const client = ws('?types=policy.selected', 'token');
  await waitFor('open', () => client.ws.readyState === client.ws.OPEN);
  await selectEvent();
  await waitFor('policy.selected', () => client.envelopes.length >= 1);
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(client.envelopes.map((e) => e.event_type), ['policy.selected']);
});

test('since resumes after a reconnect without gap or duplicate', async () => {
  const a = ws('?since=0');
  await selectEvent();
  await waitFor('first events', () => a.envelopes.some((e) => e.event_type === 'policy.selected'));
  a.close();
  const seen = a.envelopes.filter((e) => e.event_type !== 'flow.snapshot').map((e) => e.sequence);
  await selectEvent();
  await selectEvent();
  const b = ws(`?since=${seen.at(-1)}`, 'token');
  await waitFor('snapshot after replay', () => b.envelopes.some((e) => e.event_type === 'flow.snapshot'));
  await selectEvent();
  await waitFor('live after snapshot', () => b.envelopes.at(-1)?.event_type === 'policy.selected');
  const resumed = b.envelopes.filter((e) => e.event_type !== 'flow.snapshot').map((e) => e.sequence);
  assertContiguous([...seen, ...resumed], 1);
});

test('an upgrade with a malformed since or an unknown path is refused with a problem', async () => {
  const bad = ws('?since=abc');
  const nowhere = new WsClient(`${node.wsUrl}/api/v1/events/socket`, { key: node.apiKey });
  open.push(nowhere);
  await waitFor('refusals', () => bad.unexpected !== null && nowhere.unexpected !== null);
  assert.is(bad.unexpected, 400);
  assert.is(nowhere.unexpected, 404);
});

test('a refused upgrade answers problem+json and closes', async () => {
  const { port } = new URL(node.baseUrl);
  const socket = net.connect(Number(port), '127.0.0.1');
  socket.write(
    [
      'GET /api/v1/events/ws?since=x HTTP/1.1',
      `Host: 127.0.0.1:${port}`,
      `Authorization: Bearer ${node.apiKey}`,
      'Connection: Upgrade',
      'Upgrade: websocket',
      'Sec-WebSocket-Version: 13',
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
      '',
      '',
    ].join('\r\n'),
  );
  let text = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  await new Promise((resolve) => socket.once('close', resolve));
  const [head, body] = text.split('\r\n\r\n');
  const lines = head!.split('\r\n');
  assert.is(lines[0], 'HTTP/1.1 400 Bad Request');
  assert.ok(lines.includes('Content-Type: application/problem+json'));
  assert.equal(JSON.parse(body!), {
    type: 'urn:weir:problem:bad-request',
    title: 'Malformed request',
    status: 400,
    detail: 'since must be an integer from 0 to 9007199254740991',
    code: 'BAD_REQUEST',
  });
});

test('the node pings an idle subscriber', async () => {
  const client = ws('?types=engine.warning');
  let pings = 0;
  client.ws.on('ping', () => pings++);
  await waitFor('two pings', () => pings >= 2);
});

test.run();
