import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { curl } from '../support/curl.js';
import { fixture } from '../support/fixture.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { freePort } from '../support/free-port.js';
import { eventsPath } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startMicrosocks, startTinyproxy } from '../support/upstream-proxies.js';
import { assertHopFailed, hopOutbound, startChainNode, type RouteExpectation } from '../support/chain-expect.js';

const MS_USER = { username: 'weir', password: 'right-pass-51e0' };
const WRONG = { username: 'weir', password: 'wrong-pass-c4b2' };

const TINY_USER = { username: 'weir', password: 'tiny-pass-0b7e' };
const TINY_WRONG = { username: 'weir', password: 'tiny-wrong-93d5' };

const ROUTED = ['dead', 'ms-bad-pw', 'ms-then-dead', 'tiny-then-dead', 'ms', 'tiny-bad-pw'] as const;
type Routed = (typeof ROUTED)[number];

const setup = fixture(
  test,
  async () => {
    const [ms, msAuth, tiny, tinyAuth] = await Promise.all([startMicrosocks(), startMicrosocks(MS_USER), startTinyproxy(), startTinyproxy(TINY_USER)]);
    const proxies = { ms, msAuth, tiny, tinyAuth };
    const origin = await startOrigin();
    // Nothing listens there: a hop that refuses every connection.
    const deadPort = await freePort();
    const { node, stateDir } = await startChainNode(
      [
        { type: 'direct', tag: 'direct' },
        { type: 'socks', tag: 'dead', server: '127.0.0.1', port: deadPort },
        hopOutbound('ms', ms),
        hopOutbound('ms-bad-pw', msAuth, WRONG),
        hopOutbound('tiny', tiny),
        { type: 'chain', tag: 'ms-then-dead', hops: ['ms', 'dead'] },
        { type: 'chain', tag: 'tiny-then-dead', hops: ['tiny', 'dead'] },
        hopOutbound('tiny-bad-pw', tinyAuth, TINY_WRONG),
      ],
      ROUTED,
    );
    return { origin, node, proxies, deadPort, events: eventsPath(stateDir) };
  },
  async ({ origin, node, proxies }) => {
    await node.stop();
    await Promise.all([origin.close(), ...Object.values(proxies).map((p) => p.stop())]);
  },
);

/** curl through the inbound of `via` must fail; returns the flow and its target. */
async function failedThrough(via: Routed, targetPort?: number) {
  const { origin, node, events } = await setup();
  const known = knownFlows(events);
  const target = { host: '127.0.0.1', port: targetPort ?? origin.port };
  const res = await curl(['--socks5-hostname', `127.0.0.1:${node.ports[`in-${via}`]}`, `http://127.0.0.1:${target.port}/bytes/10?via=${via}`]);
  assert.is.not(res.code, 0, 'curl fails');
  const route: RouteExpectation = { inbound: `in-${via}`, index: ROUTED.indexOf(via), selection_chain: [via] };
  return { flow: await nextFlow(events, known), route, target };
}

test('a socks hop on a closed port: HOP_REFUSED on that hop', async () => {
  const { deadPort } = await setup();
  const { flow, route, target } = await failedThrough('dead');
  const message = assertHopFailed(flow, route, target, { stage: 'hop:dead', code: 'HOP_REFUSED', remote: { host: '127.0.0.1', port: deadPort } });
  assert.is(message, `hop "dead" (socks 127.0.0.1:${deadPort}) refused the connection`);
});

test('microsocks with a wrong password: HOP_AUTH_FAILED, the password in no message', async () => {
  const { proxies } = await setup();
  const { flow, route, target } = await failedThrough('ms-bad-pw');
  const message = assertHopFailed(flow, route, target, {
    stage: 'hop:ms-bad-pw',
    code: 'HOP_AUTH_FAILED',
    remote: { host: '127.0.0.1', port: proxies.msAuth.port },
  });
  assert.is(message, `hop "ms-bad-pw" (socks 127.0.0.1:${proxies.msAuth.port}) rejected the username/password of user "weir"`);
});

test('tinyproxy with a wrong password (it answers 401, not 407): HOP_AUTH_FAILED', async () => {
  const { proxies } = await setup();
  const { flow, route, target } = await failedThrough('tiny-bad-pw');
  const message = assertHopFailed(flow, route, target, {
    stage: 'hop:tiny-bad-pw',
    code: 'HOP_AUTH_FAILED',
    remote: { host: '127.0.0.1', port: proxies.tinyAuth.port },
  });
  assert.is(message, `hop "tiny-bad-pw" (http 127.0.0.1:${proxies.tinyAuth.port}) answered CONNECT with 401 Unauthorized: the credentials of user "weir" were refused`);
});

test('microsocks that cannot reach the second hop: HOP_REFUSED on the second hop', async () => {
  const { deadPort } = await setup();
  const { flow, route, target } = await failedThrough('ms-then-dead');
  const message = assertHopFailed(flow, route, target, { stage: 'hop:dead', code: 'HOP_REFUSED', remote: { host: '127.0.0.1', port: deadPort } });
  assert.is(message, `hop "dead" (socks 127.0.0.1:${deadPort}) refused the connection from hop "ms"`);
});

test('tinyproxy answering the CONNECT to a dead hop with an error: HOP_REJECTED on tinyproxy', async () => {
  const { proxies, deadPort } = await setup();
  const { flow, route, target } = await failedThrough('tiny-then-dead');
  const message = assertHopFailed(flow, route, target, { stage: 'hop:tiny', code: 'HOP_REJECTED', remote: { host: '127.0.0.1', port: proxies.tiny.port } });
  assert.match(message, new RegExp(`^hop "tiny" \\(http 127\\.0\\.0\\.1:${proxies.tiny.port}\\) answered CONNECT 127\\.0\\.0\\.1:${deadPort} with 5\\d\\d `));
});

test('a last hop that cannot reach the target: HOP_REJECTED with the SOCKS5 reply', async () => {
  const { proxies } = await setup();
  const closed = await freePort();
  const { flow, route, target } = await failedThrough('ms', closed);
  const message = assertHopFailed(flow, route, target, { stage: 'hop:ms', code: 'HOP_REJECTED', remote: { host: '127.0.0.1', port: proxies.ms.port } });
  assert.is(message, `hop "ms" (socks 127.0.0.1:${proxies.ms.port}) answered CONNECT 127.0.0.1:${closed} with: connection refused`);
});

test('no hop password reaches the sink or the log, and every flow is complete', async () => {
  const { node, events } = await setup();
  await stopAndAudit(node, events);
  const text = fs.readFileSync(events, 'utf8') + node.stdout() + node.stderr();
  for (const secret of [MS_USER.password, WRONG.password, TINY_WRONG.password]) assert.not.ok(text.includes(secret), 'a hop password is in the sink file or the log');
});

test.run();
