import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { curl } from '../support/curl.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { readJsonl } from '../support/jsonl.js';
import { proxyFixture } from '../support/proxy-fixture.js';
import { droppedWhileHeld, rawExchange } from '../support/raw-client.js';

const OPEN = 'socks-in';
const GUARDED = 'socks-auth';
const HANDSHAKE_MS = 800;

const setup = proxyFixture(test, {
  inbounds: [
    { type: 'socks', tag: OPEN },
    { type: 'socks', tag: GUARDED, users: [{ username: 'erin', password: 'erin-Pw-44c1' }] },
  ],
  flows: { handshake_timeout_ms: HANDSHAKE_MS },
});

const NOAUTH_GREETING = [5, 1, 0];
const CHOSEN_NOAUTH = [5, 0];
const CONNECT_LOCAL_80 = [5, 1, 0, 1, 127, 0, 0, 1, 0, 80];
/** VER REP RSV ATYP(IPv4) 0.0.0.0:0 */
const reply = (rep: number): number[] => [5, rep, 0, 1, 0, 0, 0, 0, 0, 0];

async function port(tag: string): Promise<number> {
  const { node } = await setup();
  return node.ports[tag]!;
}

test('closes a greeting of another SOCKS version without a reply', async () => {
  const res = await rawExchange(await port(OPEN), [4, 1, 0, 80, 127, 0, 0, 1, 0]);
  assert.ok(res.closed);
  assert.equal([...res.data], []);
});

test('answers a greeting without an acceptable method with 0xFF and closes', async () => {
  const res = await rawExchange(await port(OPEN), [5, 1, 2]);
  assert.ok(res.closed);
  assert.equal([...res.data], [5, 0xff]);
});

test('answers a greeting that offers no methods at all with 0xFF and closes', async () => {
  const res = await rawExchange(await port(OPEN), [5, 0]);
  assert.ok(res.closed);
  assert.equal([...res.data], [5, 0xff]);
});

test('closes a greeting cut short by the client', async () => {
  const res = await rawExchange(await port(OPEN), [5, 3, 0], { end: true });
  assert.ok(res.closed);
  assert.equal([...res.data], []);
});

test('closes a request cut short by the client', async () => {
  const res = await rawExchange(await port(OPEN), [...NOAUTH_GREETING, 5, 1, 0, 3, 11, ...Buffer.from('exam')], { end: true });
  assert.ok(res.closed);
  assert.equal([...res.data], CHOSEN_NOAUTH);
});

test('closes a truncated request that never completes after the handshake timeout', async () => {
  const started = Date.now();
  const res = await rawExchange(await port(OPEN), [...NOAUTH_GREETING, 5, 1, 0, 1, 127, 0]);
  assert.ok(res.closed, 'the node closed the stalled handshake');
  assert.ok(Date.now() - started >= HANDSHAKE_MS - 50, 'not before the handshake timeout');
  assert.equal([...res.data], CHOSEN_NOAUTH);
});

test('answers BIND with 0x07 command not supported and closes', async () => {
  const res = await rawExchange(await port(OPEN), [...NOAUTH_GREETING, 5, 2, 0, 1, 127, 0, 0, 1, 0, 80]);
  assert.ok(res.closed);
  assert.equal([...res.data], [...CHOSEN_NOAUTH, ...reply(7)]);
});

test('answers BIND and an unknown command with 0x07 and closes', async () => {
  for (const cmd of [2, 9]) {
    const res = await rawExchange(await port(OPEN), [...NOAUTH_GREETING, 5, cmd, 0, 1, 127, 0, 0, 1, 0, 80]);
    assert.ok(res.closed, `command ${cmd}`);
    assert.equal([...res.data], [...CHOSEN_NOAUTH, ...reply(7)], `command ${cmd}`);
  }
});

test('answers an unknown address type with 0x08 and closes', async () => {
  const res = await rawExchange(await port(OPEN), [...NOAUTH_GREETING, 5, 1, 0, 9, 127, 0, 0, 1, 0, 80]);
  assert.ok(res.closed);
  assert.equal([...res.data], [...CHOSEN_NOAUTH, ...reply(8)]);
});

test('answers a wrong password with status 1 and closes', async () => {
  const user = [...Buffer.from('erin')];
  const pass = [...Buffer.from('wrong')];
  const res = await rawExchange(await port(GUARDED), [5, 1, 2, 1, user.length, ...user, pass.length, ...pass, ...CONNECT_LOCAL_80]);
  assert.ok(res.closed);
  assert.equal([...res.data], [5, 2, 1, 1]);
});

test('drops a refused client that never closes its side', async () => {
  // The node lingers 2 s for the client to read the refusal and close.
  assert.ok(await droppedWhileHeld(await port(OPEN), [5, 1, 2], 3000), 'the node still held the connection');
});

test('stays up and serves curl afterwards; no bad handshake became a flow', async () => {
  const { origin, events, node } = await setup();
  assert.is(readJsonl(events).filter((e) => e.event_type.startsWith('flow.')).length, 0, 'no flow events so far');
  const known = knownFlows(events);
  const res = await curl(['--socks5-hostname', `127.0.0.1:${node.ports[OPEN]}`, origin.url('/bytes/100?case=after-bad-socks')]);
  assert.is(res.code, 0, res.stderr);
  assert.is(res.body.length, 100);
  await nextFlow(events, known);
  await stopAndAudit(node, events);
});

test.run();
