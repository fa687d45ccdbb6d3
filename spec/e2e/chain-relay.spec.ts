import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { curl } from '../support/curl.js';
import { fixture } from '../support/fixture.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { eventsPath } from '../support/node-config.js';
import { closedConnection, startOrigin } from '../support/origin.js';
import { startDante, startMicrosocks, startTinyproxy } from '../support/upstream-proxies.js';
import { assertChained, hopOutbound, relayHop, startChainNode, type ChainedExpectation } from '../support/chain-expect.js';

const MS_USER = { username: 'weir', password: 'ms-pass-7d1f' };
const TINY_USER = { username: 'weir', password: 'tiny-pass-93ac' };

/** Outbound tag → a socks inbound `in-<tag>` routed to it by rule `index`. */
const ROUTED = ['ms', 'ms-auth', 'dante', 'tiny', 'tiny-auth', 'ms-then-tiny', 'dante-then-ms', 'pick'] as const;
type Routed = (typeof ROUTED)[number];

const setup = fixture(
  test,
  async () => {
    const [ms, msAuth, dante, tiny, tinyAuth] = await Promise.all([
      startMicrosocks(),
      startMicrosocks(MS_USER),
      startDante(),
      startTinyproxy(),
      startTinyproxy(TINY_USER),
    ]);
    const proxies = { ms, msAuth, dante, tiny, tinyAuth };
    const origin = await startOrigin();
    const { node, stateDir } = await startChainNode([
      { type: 'direct', tag: 'direct' },
      hopOutbound('ms', ms),
      hopOutbound('ms-auth', msAuth, MS_USER),
      hopOutbound('dante', dante),
      hopOutbound('tiny', tiny),
      hopOutbound('tiny-auth', tinyAuth, TINY_USER),
      { type: 'chain', tag: 'ms-then-tiny', hops: ['ms', 'tiny'] },
      { type: 'chain', tag: 'dante-then-ms', hops: ['dante', 'ms'] },
      { type: 'selector', tag: 'pick', members: ['direct', 'ms-then-tiny'], default: 'ms-then-tiny' },
    ], ROUTED);
    return { origin, node, proxies, events: eventsPath(stateDir) };
  },
  async ({ origin, node, proxies }) => {
    await node.stop();
    await Promise.all([origin.close(), ...Object.values(proxies).map((p) => p.stop())]);
  },
);

/** Downloads `size` bytes with curl through the inbound of `via`; returns the flow and the origin's side. */
async function download(via: Routed, size: number) {
  const { origin, node, events } = await setup();
  const known = knownFlows(events);
  const path = `/bytes/${size}?via=${via}`;
  const res = await curl(['--socks5-hostname', `127.0.0.1:${node.ports[`in-${via}`]}`, origin.url(path)]);
  assert.is(res.code, 0, `${res.stderr}\nweir stderr: ${node.stderr()}`);
  assert.is(res.body.length, size);
  const flow = await nextFlow(events, known);
  return { flow, conn: await closedConnection(origin, path), target: { host: '127.0.0.1', port: origin.port } };
}

function route(via: Routed, selection_chain: string[] = [via]): Pick<ChainedExpectation, 'inbound' | 'index' | 'selection_chain'> {
  return { inbound: `in-${via}`, index: ROUTED.indexOf(via), selection_chain };
}

test('relays through microsocks: socks outbound, one hop, exact handshake bytes', async () => {
  const { proxies } = await setup();
  const { flow, conn, target } = await download('ms', 5000);
  // SOCKS5 to an IPv4 target: greeting 3 + request 10 written, method 2 + reply 10 read.
  assertChained(
    flow,
    { ...route('ms'), target, outbound: { tag: 'ms', protocol: 'socks' }, relay_chain: [relayHop('ms', proxies.ms)], handshake: { rx: 12, tx: 13 } },
    conn,
  );
});

test('relays through microsocks with username/password', async () => {
  const { proxies } = await setup();
  const { flow, conn, target } = await download('ms-auth', 3000);
  const auth = 3 + MS_USER.username.length + MS_USER.password.length;
  assertChained(
    flow,
    {
      ...route('ms-auth'),
      target,
      outbound: { tag: 'ms-auth', protocol: 'socks' },
      relay_chain: [relayHop('ms-auth', proxies.msAuth)],
      // greeting offers no-auth and username/password: 4 bytes; auth status 2 more read.
      handshake: { rx: 14, tx: 4 + auth + 10 },
    },
    conn,
  );
});

test('relays through Dante', async () => {
  const { proxies } = await setup();
  const { flow, conn, target } = await download('dante', 4096);
  assertChained(
    flow,
    { ...route('dante'), target, outbound: { tag: 'dante', protocol: 'socks' }, relay_chain: [relayHop('dante', proxies.dante)], handshake: { rx: 12, tx: 13 } },
    conn,
  );
});

test('relays through tinyproxy with HTTP CONNECT', async () => {
  const { proxies } = await setup();
  const { flow, conn, target } = await download('tiny', 2048);
  assertChained(flow, { ...route('tiny'), target, outbound: { tag: 'tiny', protocol: 'http' }, relay_chain: [relayHop('tiny', proxies.tiny)] }, conn);
});

test('relays through tinyproxy with Basic proxy auth', async () => {
  const { proxies } = await setup();
  const { flow, conn, target } = await download('tiny-auth', 1000);
  assertChained(
    flow,
    { ...route('tiny-auth'), target, outbound: { tag: 'tiny-auth', protocol: 'http' }, relay_chain: [relayHop('tiny-auth', proxies.tinyAuth)] },
    conn,
  );
});

test('chains microsocks then tinyproxy, the hops in order', async () => {
  const { proxies } = await setup();
  const { flow, conn, target } = await download('ms-then-tiny', 70_000);
  assertChained(
    flow,
    {
      ...route('ms-then-tiny'),
      target,
      outbound: { tag: 'ms-then-tiny', protocol: 'chain' },
      relay_chain: [relayHop('ms', proxies.ms), relayHop('tiny', proxies.tiny)],
    },
    conn,
  );
});

test('chains Dante then microsocks: two SOCKS5 handshakes on one socket', async () => {
  const { proxies } = await setup();
  const { flow, conn, target } = await download('dante-then-ms', 9000);
  assertChained(
    flow,
    {
      ...route('dante-then-ms'),
      target,
      outbound: { tag: 'dante-then-ms', protocol: 'chain' },
      relay_chain: [relayHop('dante', proxies.dante), relayHop('ms', proxies.ms)],
      handshake: { rx: 24, tx: 26 },
    },
    conn,
  );
});

test('a selector choosing a chain reports the walk in selection_chain', async () => {
  const { proxies } = await setup();
  const { flow, conn, target } = await download('pick', 1234);
  assertChained(
    flow,
    {
      ...route('pick', ['pick', 'ms-then-tiny']),
      target,
      outbound: { tag: 'ms-then-tiny', protocol: 'chain' },
      relay_chain: [relayHop('ms', proxies.ms), relayHop('tiny', proxies.tiny)],
    },
    conn,
  );
});

test('no hop password reaches the sink or the log, and every flow is complete', async () => {
  const { node, events } = await setup();
  await stopAndAudit(node, events);
  const text = fs.readFileSync(events, 'utf8') + node.stdout() + node.stderr();
  for (const secret of [MS_USER.password, TINY_USER.password]) assert.not.ok(text.includes(secret), 'a hop password is in the sink file or the log');
});

test.run();
