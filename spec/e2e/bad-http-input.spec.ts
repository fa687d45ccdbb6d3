import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { curl } from '../support/curl.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { readJsonl } from '../support/jsonl.js';
import { proxyFixture } from '../support/proxy-fixture.js';
import { rawExchange } from '../support/raw-client.js';

const HTTP = 'http-in';
const MIXED = 'mixed-in';

const setup = proxyFixture(test, {
  inbounds: [
    { type: 'http', tag: HTTP },
    { type: 'mixed', tag: MIXED },
  ],
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
