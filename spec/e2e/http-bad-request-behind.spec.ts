import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { directRelayed } from '../support/direct-download.js';
import { assertFlow, recordOf } from '../support/flow-expect.js';
import { knownFlows, nextFlows } from '../support/flow-lifecycle.js';
import { closedConnection } from '../support/origin.js';
import { proxyFixture } from '../support/proxy-fixture.js';
import { proxyGet, WireClient } from '../support/wire-client.js';

/**
 * A request Node's parser refuses (an oversized head, bytes that are no HTTP, anything
 * after a request that said Connection: close) pipelined behind one whose answer is
 * still coming: the answer the flow bills must reach the client whole, before the
 * refusal and the close. The refusal was written at once, in place of that answer.
 */
const HTTP = { tag: 'http-in', protocol: 'http' };
/** 4 chunks of 1000 bytes, 150 ms apart: the answer is under way when the bad request is read. */
const TRICKLE = '/trickle?chunks=4&size=1000&every_ms=150';

const setup = proxyFixture(test, { inbounds: [{ type: 'http', tag: HTTP.tag }] });

const BEHIND = {
  'an oversized head': [`GET http://127.0.0.1/x HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, /HTTP\/1\.1 431 /],
  'bytes that are no HTTP': ['NOT HTTP AT ALL\r\n\r\n', /HTTP\/1\.1 400 /],
} as const;

/** Pipelines the trickled answer's request and `behind`; returns what the client got, once the node closed. */
async function pipelined(label: string, first: (url: string) => string, behind: string): Promise<{ text: string; path: string }> {
  const { origin, proxy } = await setup();
  const path = `${TRICKLE}&case=${label}`;
  const wire = await WireClient.open(proxy(HTTP.tag));
  wire.send(first(origin.url(path)));
  await wire.last(behind);
  return { text: wire.text, path };
}

for (const [what, [behind, refusal]] of Object.entries(BEHIND)) {
  test(`answers a request in flight whole before refusing ${what} pipelined behind it`, async () => {
    const { origin, events } = await setup();
    const known = knownFlows(events);
    const { text, path } = await pipelined(what.replace(/ /g, '-'), (url) => proxyGet(url), behind);

    const [flow] = await nextFlows(events, known, 1);
    assertFlow(flow!, directRelayed(HTTP, origin.port));
    const answerEnd = text.indexOf('t'.repeat(4000)) + 4000;
    assert.ok(answerEnd >= 4000, `the client got the whole answer: ${JSON.stringify(text.slice(0, 300))}`);
    assert.match(text.slice(answerEnd), refusal, 'then the refusal');
    assert.is(recordOf(flow!.completed).traffic.bytes_down, (await closedConnection(origin, path)).bytesWritten);
  });
}

test('ignores what a client sends after a request that said Connection: close, and closes after its answer', async () => {
  const { origin, events } = await setup();
  const known = knownFlows(events);
  const { text } = await pipelined('after-close', (url) => proxyGet(url, { close: true }), proxyGet(origin.url('/bytes/3?case=after-close')));

  const [flow] = await nextFlows(events, known, 1);
  assertFlow(flow!, directRelayed(HTTP, origin.port));
  const head = text.slice(0, text.indexOf('\r\n\r\n') + 4);
  assert.match(head, /^HTTP\/1\.1 200 OK\r\n[^]*\r\nConnection: close\r\n/);
  assert.is(text.slice(head.length), 't'.repeat(4000), 'the answer alone, then the close');
});

test('stops with every flow completed once', async () => {
  const { node, events } = await setup();
  await stopAndAudit(node, events);
});

test.run();
