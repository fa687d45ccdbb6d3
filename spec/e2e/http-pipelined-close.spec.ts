import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { directRelayed } from '../support/direct-download.js';
import { assertFlow, recordOf } from '../support/flow-expect.js';
import { fixture } from '../support/fixture.js';
import { knownFlows, nextFlows } from '../support/flow-lifecycle.js';
import { settlesBeforeFar, WAIT_MS } from '../support/far-bound.js';
import { waitForEvents, type JsonEnvelope } from '../support/jsonl.js';
import { proxyFixture } from '../support/proxy-fixture.js';
import { runWeir } from '../support/weir-bin.js';
import { startRawOrigin } from '../support/raw-origin.js';
import { proxyGet, WireClient } from '../support/wire-client.js';

const HTTP = { tag: 'http-in', protocol: 'http' };

const setup = proxyFixture(test, { inbounds: [{ type: 'http', tag: HTTP.tag }] });
/** Never answers: a request to it waits, and the ones pipelined after it are queued behind it. */
const mute = fixture(test, () => startRawOrigin({ mute: null }), (origin) => origin.close());

/** Waits until `count` flows not in `known` were routed: each request has reached its origin. */
async function routed(events: string, known: ReadonlySet<string>, count: number): Promise<void> {
  const isNew = (e: JsonEnvelope): boolean => e.event_type === 'flow.routed' && !known.has(String(e.payload['flow_id']));
  await waitForEvents(events, (all) => all.filter(isNew).length >= count, WAIT_MS, `${count} new flow.routed`);
}

/**
 * Pipelines `urls` on one client connection, waits until every request is routed (and
 * the answers hold `seen`), then leaves with a FIN or a reset. Every flow must complete
 * exactly once, as an ordinary relayed end: the client leaving is no failure. The flows
 * share the client's bytes without counting one twice.
 */
async function pipelineThenLeave(urls: string[], how: 'fin' | 'rst', seen = ''): Promise<void> {
  const { events, proxy } = await setup();
  const known = knownFlows(events);
  const wire = await WireClient.open(proxy(HTTP.tag));
  wire.send(urls.map((url) => proxyGet(url)).join(''));
  await routed(events, known, urls.length);
  await wire.until(seen);
  const client = await wire.leave(how);

  const flows = await nextFlows(events, known, urls.length);
  flows.forEach((flow, i) => assertFlow(flow, directRelayed(HTTP, Number(new URL(urls[i]!).port))));
  const records = flows.map((f) => recordOf(f.completed));
  const sum = (key: 'inbound_rx_bytes' | 'inbound_tx_bytes'): number => records.reduce((n, r) => n + r.traffic[key], 0);
  assert.is(sum('inbound_rx_bytes'), client.sent, 'the flows share what the client sent');
  assert.is(sum('inbound_tx_bytes'), client.received, 'the flows share what the client received');
}

for (const how of ['fin', 'rst'] as const) {
  test(`completes each of three pipelined flows once when the client leaves (${how}) before any answer`, async () => {
    const origin = await mute();
    await pipelineThenLeave([origin.url('mute'), origin.url('mute'), origin.url('mute')], how);
  });

  test(`completes each of three pipelined flows once when the client leaves (${how}) during the first answer`, async () => {
    const { origin } = await setup();
    const queued = (await mute()).url('mute');
    // `/silent` sends its head and `hello\n`, then nothing: the two after it stay queued.
    await pipelineThenLeave([origin.url(`/silent?case=pipelined-${how}`), queued, queued], how, 'hello\n');
  });
}

test('flows.close of a request queued behind an unanswered one ends it now, with the connection it shares', async () => {
  const { events, node, proxy } = await setup();
  const mutes = [(await mute()).url('mute'), (await mute()).url('mute')];
  const known = knownFlows(events);
  const wire = await WireClient.open(proxy(HTTP.tag));
  wire.send(mutes.map((url) => proxyGet(url)).join(''));
  await routed(events, known, 2);
  const [first, queued] = [...knownFlows(events)].filter((id) => !known.has(id));
  // Its answer cannot be skipped on a pipelined connection: waiting for its turn was waiting for ever.
  const close = await runWeir(['flows', 'close', queued!, '-c', node.configPath]);
  assert.is(close.code, 0, close.stderr);
  await settlesBeforeFar(wire.closed, 'the end of the client connection');

  const flows = await nextFlows(events, known, 2);
  const byId = new Map(flows.map((f) => [f.flowId, recordOf(f.completed)]));
  assert.equal(byId.get(queued!)?.result, { outcome: 'cancelled', close_reason: 'manual', failure: null });
  assert.equal(byId.get(first!)?.result, { outcome: 'direct_relayed', close_reason: null, failure: null }, 'the one ahead ends as its client left');
});

test('leaves no flow open: the node stops with every flow completed once', async () => {
  const { node, events } = await setup();
  await stopAndAudit(node, events);
});

test.run();
