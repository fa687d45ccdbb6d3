import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WAIT_MS } from '../support/far-bound.js';
import { waitFor } from '../support/wait-for.js';
import { WsClient } from '../support/event-clients.js';
import { startNode, type TestNode } from '../support/api-node.js';
import { loudBefore } from '../support/loud-before.js';

const MAX_FAILURES = 10;
let node: TestNode;

loudBefore(test, async () => {
  // A short window, so the episode's end comes within the spec.
  node = await startNode({ authThrottle: { maxFailures: MAX_FAILURES, windowMs: 3000 } });
});
test.after(async () => {
  await node.stop();
});

const lines = (log: string, msg: string): Record<string, unknown>[] =>
  log
    .split('\n')
    .filter((l) => l.includes(`"msg":"${msg}"`))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

test('wrong keys from 127.0.0.1 are throttled after the limit, on every face, and logged once per episode', async () => {
  const statuses: number[] = [];
  for (let i = 0; i < MAX_FAILURES + 5; i++) statuses.push((await node.api('/api/v1/stats', { key: `wrong-key-${i}` })).status);
  assert.equal(statuses, [...Array<number>(MAX_FAILURES).fill(401), ...Array<number>(5).fill(429)]);

  // Throttled whatever it sends now: the right key, the Clash API, a WebSocket upgrade.
  const right = await node.api('/api/v1/stats');
  assert.is(right.status, 429);
  assert.is(right.json.code, 'AUTH_THROTTLED');
  assert.is(right.json.type, 'urn:weir:problem:auth-throttled');
  const wait = Number(right.headers.get('retry-after'));
  assert.ok(wait >= 1 && wait <= 3, `Retry-After ${wait}`);
  const clash = await node.api('/proxies');
  assert.is(clash.status, 429);
  assert.type(clash.json.message, 'string');
  const upgrade = new WsClient(`${node.wsUrl}/api/v1/events/ws`, { key: node.apiKey });
  await waitFor(() => upgrade.unexpected !== null, WAIT_MS, 'the upgrade refused');
  assert.is(upgrade.unexpected, 429);

  const log = await node.logText();
  const started = lines(log, 'control authentication failed: a wrong key');
  assert.is(started.length, 1, 'one line for the episode, not one per wrong key');
  assert.is(started[0]!['remote'], '127.0.0.1');
  for (const l of log.split('\n')) assert.not.ok(l.includes('wrong-key-'), 'a presented key in the log');
});

test('the episode ends with one summary line, and the address is heard again', async () => {
  await waitFor(async () => lines(await node.logText(), 'control authentication failures ended').length > 0, WAIT_MS, 'the episode summary');
  const [summary] = lines(await node.logText(), 'control authentication failures ended');
  assert.equal(
    { remote: summary!['remote'], failures: summary!['failures'], throttled: summary!['throttled'] },
    { remote: '127.0.0.1', failures: MAX_FAILURES, throttled: true },
  );
  assert.ok((summary!['refused'] as number) >= 8, `refused ${String(summary!['refused'])}`);
  assert.is((await node.api('/api/v1/stats')).status, 200);
});

test.run();
