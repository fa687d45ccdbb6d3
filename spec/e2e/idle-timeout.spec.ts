import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { curl, CURL_TIMED_OUT } from '../support/curl.js';
import { directRelayed } from '../support/direct-download.js';
import { assertFlow, recordOf } from '../support/flow-expect.js';
import { knownFlows, nextFlows } from '../support/flow-lifecycle.js';
import { closedConnection, startOrigin } from '../support/origin.js';
import { proxyFixture } from '../support/proxy-fixture.js';
import { assertDirectBytes } from '../support/relay-bytes.js';

const INBOUND = { tag: 'socks-in', protocol: 'socks' };
const IDLE_S = 2;

const setup = proxyFixture(test, { inbounds: [{ type: 'socks', tag: INBOUND.tag }], flows: { idle_timeout_s: IDLE_S } });

test('closes a silent tunnel with idle_timeout and keeps one that moves bytes', async () => {
  const { origin, events, proxy } = await setup();
  // The busy flow goes to a second origin, so the two flows differ by target port.
  const busyOrigin = await startOrigin();
  try {
    const known = knownFlows(events);
    const silent = '/silent?case=idle';
    // 12 chunks, one every 250 ms: 3 s of traffic, longer than the idle timeout, never idle.
    const busy = '/trickle?chunks=12&size=100&every_ms=250&case=busy';
    const [quiet, moving] = await Promise.all([
      curl(['--socks5-hostname', proxy(INBOUND.tag), origin.url(silent)], 10_000),
      curl(['--socks5-hostname', proxy(INBOUND.tag), busyOrigin.url(busy)], 10_000),
    ]);
    assert.is.not(quiet.code, 0, 'curl sees the silent transfer cut');
    assert.is.not(quiet.code, CURL_TIMED_OUT, 'cut by the node, not by curl --max-time');
    assert.is(quiet.body.toString(), 'hello\n');
    assert.is(moving.code, 0, moving.stderr);
    assert.is(moving.body.length, 1200);

    const flows = await nextFlows(events, known, 2);
    const to = (port: number) => flows.find((f) => recordOf(f.started).target.port === port)!;
    const [idle, kept] = [to(origin.port), to(busyOrigin.port)];
    assertFlow(idle, { ...directRelayed(INBOUND, origin.port), close_reason: 'idle_timeout' });
    assertFlow(kept, directRelayed(INBOUND, busyOrigin.port));

    const idleRecord = recordOf(idle.completed);
    const quietFor = idleRecord.timing.ended_at_unix_ms! - idleRecord.timing.last_activity_at_unix_ms;
    assert.ok(quietFor >= IDLE_S * 1000, `not closed before the idle timeout: ${quietFor} ms after the last activity`);
    assertDirectBytes(idleRecord, await closedConnection(origin, silent));
    assertDirectBytes(recordOf(kept.completed), await closedConnection(busyOrigin, busy));
  } finally {
    await busyOrigin.close();
  }
});

test('writes a sink file of valid envelopes with every flow complete', async () => {
  const { node, events } = await setup();
  await stopAndAudit(node, events);
});

test.run();
