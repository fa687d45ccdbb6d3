import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { directRelayed } from '../support/direct-download.js';
import { assertFlow, recordOf } from '../support/flow-expect.js';
import { fixture } from '../support/fixture.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { closedConnection } from '../support/origin.js';
import { proxyFixture } from '../support/proxy-fixture.js';
import { startRawOrigin } from '../support/raw-origin.js';
import { WireClient } from '../support/wire-client.js';

/**
 * `Expect: 100-continue` is the origin's to answer (RFC 9110 §10.1.1): a proxy either
 * answers with a final status it can tell from the head alone (403 for a blocked
 * target, 407 without credentials) or forwards the head and passes on the origin's
 * 100 Continue. The node answered 100 Continue itself, at once, so the client sent its
 * body before the node refused it or the origin turned it down.
 */
const HTTP = { tag: 'http-in', protocol: 'http' };
const GUARDED = { tag: 'http-auth', protocol: 'http' };
const DECLINED = 'HTTP/1.1 417 Expectation Failed\r\nContent-Length: 0\r\n\r\n';
const BODY = 1000;

const setup = proxyFixture(test, {
  inbounds: [
    { type: 'http', tag: HTTP.tag },
    { type: 'http', tag: GUARDED.tag, users: [{ username: 'erin', password: 'erin-Pw-5d1c0a77' }] },
  ],
  rules: [{ domain_suffix: ['blocked.test'], outbound: 'block' }],
});
const declining = fixture(test, () => startRawOrigin({ declined: DECLINED }), (origin) => origin.close());

/** A POST head asking to continue, its body held back. */
function expecting(url: string): string {
  return `POST ${url} HTTP/1.1\r\nHost: x\r\nContent-Length: ${BODY}\r\nExpect: 100-continue\r\n\r\n`;
}

/** Sends the head on a new connection and waits for the first whole answer. */
async function firstAnswer(tag: string, url: string): Promise<{ wire: WireClient; text: string }> {
  const { proxy } = await setup();
  const wire = await WireClient.open(proxy(tag));
  await wire.exchange(expecting(url));
  return { wire, text: wire.text };
}

test('refuses a blocked target with 403 instead of asking for the body', async () => {
  const { events } = await setup();
  const known = knownFlows(events);
  const { text } = await firstAnswer(HTTP.tag, 'http://upload.blocked.test/');
  assert.match(text, /^HTTP\/1\.1 403 /);
  assert.is(recordOf((await nextFlow(events, known)).completed).result?.outcome, 'blocked');
});

test('asks for credentials with 407 instead of asking for the body', async () => {
  const { origin } = await setup();
  const { text } = await firstAnswer(GUARDED.tag, origin.url('/bytes/1?case=expect-407'));
  assert.match(text, /^HTTP\/1\.1 407 /);
});

test("passes on an origin's final answer to the head, with no 100 Continue before it", async () => {
  const { events } = await setup();
  const origin = await declining();
  const known = knownFlows(events);
  const { text } = await firstAnswer(HTTP.tag, origin.url('declined'));
  assert.match(text, /^HTTP\/1\.1 417 /);
  assertFlow(await nextFlow(events, known), directRelayed(HTTP, origin.port));
});

test("passes on the origin's 100 Continue, then the body and the answer", async () => {
  const { origin, events } = await setup();
  const known = knownFlows(events);
  const path = '/upload?case=expect-continue';
  const { wire, text } = await firstAnswer(HTTP.tag, origin.url(path));
  assert.is(text, 'HTTP/1.1 100 Continue\r\n\r\n');
  await wire.exchange('b'.repeat(BODY));
  assert.match(wire.text.slice(text.length), new RegExp(`^HTTP/1\\.1 200 OK\r\n[^]*\r\n\r\n${BODY}$`));
  await wire.leave('fin');
  const flow = await nextFlow(events, known);
  assertFlow(flow, directRelayed(HTTP, origin.port));
  const conn = await closedConnection(origin, path);
  assert.equal([recordOf(flow.completed).traffic.bytes_down, recordOf(flow.completed).traffic.bytes_up], [conn.bytesWritten, conn.bytesRead]);
});

test('passes no 100 Continue on to an HTTP/1.0 client, which knows no 1xx answers', async () => {
  const { origin, proxy } = await setup();
  const wire = await WireClient.open(proxy(HTTP.tag));
  const url = origin.url('/upload?case=expect-http10');
  await wire.last(`POST ${url} HTTP/1.0\r\nContent-Length: ${BODY}\r\nExpect: 100-continue\r\n\r\n${'b'.repeat(BODY)}`);
  assert.match(wire.text, new RegExp(`^HTTP/1\\.1 200 OK\r\n[^]*\r\n\r\n${BODY}$`), JSON.stringify(wire.text));
});

test('stops with every flow completed once', async () => {
  const { node, events } = await setup();
  await stopAndAudit(node, events);
});

test.run();
