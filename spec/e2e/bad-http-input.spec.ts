import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { curl } from '../support/curl.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { readJsonl } from '../support/jsonl.js';
import { proxyFixture } from '../support/proxy-fixture.js';
import { droppedWhileHeld, rawExchange } from '../support/raw-client.js';

const HTTP = 'http-in';
const MIXED = 'mixed-in';

const HANDSHAKE_MS = 1500;
/** How long past the handshake timeout a close may come on a busy machine, and still be its close. */
const LATE_MS = 900;
const STALLED_HEAD = Buffer.from('GET http://127.0.0.1:9/ HTTP/1.1\r\nHost: 127.0.0.1:9\r\n');

const setup = proxyFixture(test, {
  inbounds: [
    { type: 'http', tag: HTTP },
    { type: 'mixed', tag: MIXED },
  ],
  flows: { handshake_timeout_ms: HANDSHAKE_MS },
});

async function port(tag: string): Promise<number> {
  const { node } = await setup();
  return node.ports[tag]!;
}

function statusLine(data: Buffer): string {
  return data.toString('latin1').split('\r\n')[0]!;
}

for (const tag of [HTTP, MIXED]) {
  test(`answers text garbage on the ${tag} port with 400 and closes`, async () => {
    const res = await rawExchange(await port(tag), Buffer.from('HELLO THERE\r\n\r\n'));
    assert.ok(res.closed);
    assert.is(statusLine(res.data), 'HTTP/1.1 400 Bad Request');
  });

  test(`answers binary garbage on the ${tag} port with 400 and closes`, async () => {
    const res = await rawExchange(await port(tag), [0x16, 0x03, 0x01, 0x00, 0xff, 0x00, 0x0d, 0x0a, 0x0d, 0x0a]);
    assert.ok(res.closed);
    assert.is(statusLine(res.data), 'HTTP/1.1 400 Bad Request');
  });

  test(`answers oversized request headers on the ${tag} port with 431 and closes`, async () => {
    const head = `GET http://127.0.0.1:9/ HTTP/1.1\r\nHost: 127.0.0.1:9\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`;
    const res = await rawExchange(await port(tag), Buffer.from(head));
    assert.ok(res.closed);
    assert.is(statusLine(res.data), 'HTTP/1.1 431 Request Header Fields Too Large');
  });
}

for (const tag of [HTTP, MIXED]) {
  test(`answers a request head that stalls on the ${tag} port with 408 at the handshake timeout and closes`, async () => {
    const started = Date.now();
    const res = await rawExchange(await port(tag), STALLED_HEAD, { timeoutMs: HANDSHAKE_MS + LATE_MS });
    assert.ok(res.closed, 'closed within the wait');
    assert.ok(Date.now() - started >= HANDSHAKE_MS - 50, 'not before the handshake timeout');
    assert.is(statusLine(res.data), 'HTTP/1.1 408 Request Timeout');
  });
}

test('answers a client silent on the http port with 408 at the handshake timeout and closes', async () => {
  const res = await rawExchange(await port(HTTP), [], { timeoutMs: HANDSHAKE_MS + LATE_MS });
  assert.ok(res.closed, 'closed within the wait');
  assert.is(statusLine(res.data), 'HTTP/1.1 408 Request Timeout');
});

// The first byte comes late: the wait for it takes from the handshake's time, not adds to it.
test('times a late HTTP head on the mixed port from the accept', async () => {
  const res = await rawExchange(await port(MIXED), STALLED_HEAD, { delayMs: HANDSHAKE_MS - 200, timeoutMs: HANDSHAKE_MS + LATE_MS });
  assert.ok(res.closed, 'closed within the wait');
  assert.is(statusLine(res.data), 'HTTP/1.1 408 Request Timeout');
});

test('times a late SOCKS5 handshake on the mixed port from the accept', async () => {
  const res = await rawExchange(await port(MIXED), [5, 1, 0, 5, 1, 0, 1, 127], { delayMs: HANDSHAKE_MS - 200, timeoutMs: HANDSHAKE_MS + LATE_MS });
  assert.ok(res.closed, 'closed within the wait');
  assert.equal([...res.data], [5, 0], 'the greeting was answered, the request never completed');
});

test('drops a client refused a CONNECT that never closes its side', async () => {
  // The node lingers 2 s for the client to read the answer and close.
  const connect = Buffer.from('CONNECT example.test HTTP/1.1\r\nHost: example.test\r\n\r\n');
  assert.ok(await droppedWhileHeld(await port(HTTP), [...connect], 3000), 'the node still held the connection');
});

test('answers an origin-form request (not meant for a proxy) with 400', async () => {
  const res = await rawExchange(await port(HTTP), Buffer.from('GET /index.html HTTP/1.1\r\nHost: example.test\r\nConnection: close\r\n\r\n'));
  assert.ok(res.closed);
  assert.match(statusLine(res.data), /^HTTP\/1\.1 400 /);
});

test('answers a CONNECT without a port with 400 and closes', async () => {
  const res = await rawExchange(await port(HTTP), Buffer.from('CONNECT example.test HTTP/1.1\r\nHost: example.test\r\n\r\n'));
  assert.ok(res.closed);
  assert.is(statusLine(res.data), 'HTTP/1.1 400 Bad Request');
});

for (const [target, why] of [
  ['http://127.0.0.1:0/x', 'to port 0'],
  ['http:///x', 'with no host (http:///x)'],
]) {
  test(`answers an absolute-form request ${why} with 400`, async () => {
    const res = await rawExchange(await port(HTTP), Buffer.from(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
    assert.ok(res.closed);
    assert.is(statusLine(res.data), 'HTTP/1.1 400 Bad Request');
  });
}

test('closes a request head cut short by the client', async () => {
  const res = await rawExchange(await port(HTTP), Buffer.from('GET http://127.0.0.1:9/ HTTP/1.1\r\nHo'), { end: true });
  assert.ok(res.closed);
});

test('stays up and serves curl on both ports afterwards; no bad request became a flow', async () => {
  const { origin, events, node } = await setup();
  assert.is(readJsonl(events).filter((e) => e.event_type.startsWith('flow.')).length, 0, 'no flow events so far');
  for (const tag of [HTTP, MIXED]) {
    const known = knownFlows(events);
    const res = await curl(['-x', `http://127.0.0.1:${node.ports[tag]}`, origin.url(`/bytes/100?case=after-bad-${tag}`)]);
    assert.is(res.code, 0, res.stderr);
    assert.is(res.body.length, 100);
    await nextFlow(events, known);
  }
  await stopAndAudit(node, events);
});

test.run();
