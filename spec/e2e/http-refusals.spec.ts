import net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startNode, type TestNode } from '../support/api-node.js';
import { loudBefore } from '../support/loud-before.js';

// What the control plane answers to requests it cannot take, as http/README.md says:
// "Malformed query numbers or JSON: 400 BAD_REQUEST ...; a body that fails validation:
// 422 INVALID_BODY with every reason"; an unknown type in `types` is refused (400) also
// beside `*`, as IPC subscribe refuses ["*", "bogus"].

let node: TestNode;

loudBefore(test, async () => {
  node = await startNode();
});
test.after(async () => {
  await node.stop();
});

test('GET /events refuses an unknown type beside *, as it does alone', async () => {
  for (const query of ['types=*,flow.nope', 'types=flow.nope,*', 'types=*&types=flow.nope']) {
    const res = await node.api(`/api/v1/events?${query}`);
    assert.is(res.status, 400, query);
    assert.is(res.json.code, 'BAD_REQUEST', query);
    assert.is(res.json.detail, 'unknown event type "flow.nope"', query);
  }
});

test('the SSE stream refuses an unknown type beside * before it starts', async () => {
  const ac = new AbortController();
  const res = await fetch(`${node.baseUrl}/api/v1/events/stream?types=*,flow.nope`, {
    headers: { authorization: `Bearer ${node.apiKey}` },
    signal: ac.signal,
  });
  ac.abort();
  assert.is(res.status, 400);
});

test('a JSON body that is not an object is 422 INVALID_BODY, not 400 "not valid JSON"', async () => {
  for (const body of ['null', '"rule"', '42', 'true']) {
    const res = await node.api('/api/v1/mode', { method: 'PUT', body, headers: { 'content-type': 'application/json' } });
    assert.is(res.status, 422, `${body}: ${res.text}`);
    assert.is(res.json.code, 'INVALID_BODY', body);
  }
});

/** What the control plane answers to raw bytes: status line and body. */
async function rawAnswer(port: number, request: string): Promise<{ status: string; body: string }> {
  const socket = net.connect(port, '127.0.0.1');
  socket.end(request);
  let text = '';
  for await (const chunk of socket) text += String(chunk);
  const [head = '', body = ''] = text.split('\r\n\r\n');
  return { status: head.split('\r\n')[0]!, body };
}

test('a request Node’s parser refuses gets a problem body too: 431 for a head too large, 400 for no HTTP', async () => {
  const port = Number(new URL(node.baseUrl).port);
  const large = await rawAnswer(port, `GET /api/v1/stats HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
  assert.is(large.status, 'HTTP/1.1 431 Request header fields too large');
  assert.is((JSON.parse(large.body) as { code: string }).code, 'HEADERS_TOO_LARGE');
  const garbage = await rawAnswer(port, 'NOT HTTP AT ALL\r\n\r\n');
  assert.is(garbage.status, 'HTTP/1.1 400 Malformed request');
  assert.is((JSON.parse(garbage.body) as { code: string }).code, 'BAD_REQUEST');
});

test.run();
