import net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FlowSnapshotPayload, Envelope } from '../../streams/contract.js';
import { WAIT_MS } from '../support/far-bound.js';
import { waitFor } from '../support/wait-for.js';
import { WsClient } from '../support/event-clients.js';
import { assertContiguous, StreamSpec } from '../support/stream-spec.js';

const streams = new StreamSpec(test);

function ws(query: string, auth: 'header' | 'token' = 'header'): WsClient {
  return streams.track(
    auth === 'header'
      ? new WsClient(`${streams.node.wsUrl}/api/v1/events/ws${query}`, { key: streams.node.apiKey })
      : new WsClient(`${streams.node.wsUrl}/api/v1/events/ws${query}${query ? '&' : '?'}token=${streams.node.apiKey}`),
  );
}

test('the first message is flow.snapshot at its watermark, then every live event after it', async () => {
  const client = ws('');
  await waitFor(() => client.envelopes.length >= 1, WAIT_MS, 'snapshot');
  const snapshot = client.envelopes[0] as Envelope<FlowSnapshotPayload>;
  assert.is(snapshot.event_type, 'flow.snapshot');
  assert.is(snapshot.sequence, snapshot.payload.watermark);
  await streams.selectEvent();
  await waitFor(() => client.envelopes.some((e) => e.event_type === 'policy.selected'), WAIT_MS, 'live event');
  assertContiguous(client.envelopes.slice(1).map((e) => e.sequence), snapshot.payload.watermark + 1);
});

test('no flow.snapshot when the whitelist has no flow types', async () => {
  const client = ws('?types=policy.selected', 'token');
  await waitFor(() => client.ws.readyState === client.ws.OPEN, WAIT_MS, 'open');
  await streams.selectEvent();
  await waitFor(() => client.envelopes.length >= 1, WAIT_MS, 'policy.selected');
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(client.envelopes.map((e) => e.event_type), ['policy.selected']);
});

test('since resumes after a reconnect without gap or duplicate', async () => {
  const a = ws('?since=0');
  await streams.selectEvent();
  // The select's last event is its audit record, after policy.selected.
  await waitFor(() => a.envelopes.some((e) => e.event_type === 'control.audit'), WAIT_MS, 'first events');
  a.close();
  const seen = a.envelopes.filter((e) => e.event_type !== 'flow.snapshot').map((e) => e.sequence);
  await streams.selectEvent();
  await streams.selectEvent();
  const b = ws(`?since=${seen.at(-1)}`, 'token');
  await waitFor(() => b.envelopes.some((e) => e.event_type === 'flow.snapshot'), WAIT_MS, 'snapshot after replay');
  await streams.selectEvent();
  await waitFor(() => b.envelopes.at(-1)?.event_type === 'control.audit', WAIT_MS, 'live after snapshot');
  const resumed = b.envelopes.filter((e) => e.event_type !== 'flow.snapshot').map((e) => e.sequence);
  assertContiguous([...seen, ...resumed], 1);
});

test('an upgrade with a malformed since or an unknown path is refused with a problem', async () => {
  const bad = ws('?since=abc');
  const nowhere = streams.track(new WsClient(`${streams.node.wsUrl}/api/v1/events/socket`, { key: streams.node.apiKey }));
  await waitFor(() => bad.unexpected !== null && nowhere.unexpected !== null, WAIT_MS, 'refusals');
  assert.is(bad.unexpected, 400);
  assert.is(nowhere.unexpected, 404);
});

/** Sends a WebSocket upgrade for `target` on a raw socket; the answer's head lines and body once the node closed it. */
async function rawUpgrade(target: string): Promise<{ lines: string[]; body: unknown }> {
  const { port } = new URL(streams.node.baseUrl);
  const socket = net.connect(Number(port), '127.0.0.1');
  socket.write(
    [
      `GET ${target} HTTP/1.1`,
      `Host: 127.0.0.1:${port}`,
      `Authorization: Bearer ${streams.node.apiKey}`,
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
  return { lines: head!.split('\r\n'), body: JSON.parse(body!) };
}

test('a refused upgrade answers problem+json and closes', async () => {
  const { lines, body } = await rawUpgrade('/api/v1/events/ws?since=x');
  assert.is(lines[0], 'HTTP/1.1 400 Bad Request');
  assert.ok(lines.includes('Content-Type: application/problem+json'));
  assert.equal(body, {
    type: 'urn:weir:problem:bad-request',
    title: 'Malformed request',
    status: 400,
    detail: 'since must be an integer from 0 to 9007199254740991',
    code: 'BAD_REQUEST',
  });
});

test('an upgrade whose target is not a URL is refused, and the node goes on', async () => {
  const { lines, body } = await rawUpgrade('http://[');
  assert.is(lines[0], 'HTTP/1.1 400 Bad Request');
  assert.equal(body, {
    type: 'urn:weir:problem:bad-request',
    title: 'Malformed request',
    status: 400,
    detail: 'the request target is not a valid URL',
    code: 'BAD_REQUEST',
  });
  assert.is((await rawUpgrade('/api/v1/events/ws?since=x')).lines[0], 'HTTP/1.1 400 Bad Request');
});

test('the node pings an idle subscriber', async () => {
  const client = ws('?types=engine.warning');
  let pings = 0;
  client.ws.on('ping', () => pings++);
  await waitFor(() => pings >= 2, WAIT_MS, 'two pings');
});

test.run();
