import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { curl } from '../support/curl.js';
import { authFailures } from '../support/auth-failures.js';
import { assertDirectDownload } from '../support/direct-download.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { WAIT_MS } from '../support/far-bound.js';
import { proxyFixture } from '../support/proxy-fixture.js';
import { rawExchange } from '../support/raw-client.js';
import { waitFor } from '../support/wait-for.js';

const INBOUND = { tag: 'socks-auth', protocol: 'socks' };
// Distinctive, so a leak anywhere in the node's output is found by a plain search.
const ALICE_PW = 'alice-Pw-7f3e9c1b';
const BOB_PW = 'bob-Pw-52d0aa8e';

const setup = proxyFixture(test, {
  inbounds: [
    {
      type: 'socks',
      tag: INBOUND.tag,
      users: [
        { username: 'alice', password: { env: 'E2E_ALICE_PW' } },
        { username: 'bob', password: BOB_PW, principal: 'team-b' },
      ],
    },
  ],
  env: { E2E_ALICE_PW: ALICE_PW },
});

test('relays through SOCKS5 with username/password and keys the flow by the username', async () => {
  const { origin, events, proxy } = await setup();
  await assertDirectDownload(origin, events, {
    via: ['--socks5-hostname', proxy(INBOUND.tag), '--proxy-user', `alice:${ALICE_PW}`],
    inbound: INBOUND,
    auth: { scheme: 'socks5', principal_key: 'alice', attributes: { username: 'alice' } },
    bytes: 2048,
    label: 'socks5-alice',
  });
});

test('uses a configured principal instead of the username as principal_key', async () => {
  const { origin, events, proxy } = await setup();
  const known = knownFlows(events);
  const res = await curl(['-x', `socks5h://bob:${BOB_PW}@${proxy(INBOUND.tag)}`, origin.url('/bytes/16?case=socks5-bob')]);
  assert.is(res.code, 0, res.stderr);
  const flow = await nextFlow(events, known);
  assert.is(flow.completed.principal_key, 'team-b');
  assert.equal(flow.completed.payload['auth'], { scheme: 'socks5', principal_key: 'team-b', attributes: { username: 'bob' } });
});

test('refuses a wrong password or no credentials without opening a flow; the wrong password is logged with its user name', async () => {
  const { node, origin, events, proxy } = await setup();
  const known = knownFlows(events);
  const logged = authFailures(node.stdout()).length;
  const wrong = await curl(['--socks5-hostname', proxy(INBOUND.tag), '--proxy-user', 'alice:not-the-password', origin.url('/bytes/1')]);
  assert.is.not(wrong.code, 0, 'curl fails on a wrong password');
  const none = await curl(['--socks5-hostname', proxy(INBOUND.tag), origin.url('/bytes/1')]);
  assert.is.not(none.code, 0, 'curl fails without credentials');
  // nextFlow checks that this good request is the only new flow: the refusals made none.
  const ok = await curl(['--socks5-hostname', proxy(INBOUND.tag), '--proxy-user', `alice:${ALICE_PW}`, origin.url('/bytes/1?case=after')]);
  assert.is(ok.code, 0, ok.stderr);
  const flow = await nextFlow(events, known);
  assert.is(flow.completed.principal_key, 'alice');
  // One line, for the credentials offered; a client that offered none is not a failed login.
  const lines = await waitFor(() => (authFailures(node.stdout()).length > logged ? authFailures(node.stdout()).slice(logged) : null), WAIT_MS, 'the log line');
  assert.equal(lines, [{ inbound: INBOUND.tag, username: 'alice' }]);
});

test('a username length that runs into the password logs no byte past the name', async () => {
  const { node } = await setup();
  const logged = authFailures(node.stdout()).length;
  // ULEN covers the name, PLEN and the password; the next byte is read as a PLEN of 0.
  const name = Buffer.from('alice');
  const password = Buffer.from(ALICE_PW);
  const auth = [1, name.length + 1 + password.length, ...name, password.length, ...password, 0];
  const answer = await rawExchange(node.ports[INBOUND.tag]!, [5, 1, 2, ...auth]);
  assert.equal([...answer.data], [5, 2, 1, 1], 'method 0x02 chosen, then the sub-negotiation fails');
  const lines = await waitFor(() => (authFailures(node.stdout()).length > logged ? authFailures(node.stdout()).slice(logged) : null), WAIT_MS, 'the log line');
  assert.equal(lines, [{ inbound: INBOUND.tag, username: null }]);
  assert.not.ok(node.stdout().includes(ALICE_PW), 'stdout holds the password');
  assert.not.ok(node.stderr().includes(ALICE_PW), 'stderr holds the password');
});

test('never writes a password to the sink file, stdout or stderr', async () => {
  const { node, events } = await setup();
  await stopAndAudit(node, events);
  const outputs = { sink: fs.readFileSync(events, 'utf8'), stdout: node.stdout(), stderr: node.stderr() };
  for (const [where, text] of Object.entries(outputs)) {
    for (const secret of [ALICE_PW, BOB_PW]) assert.not.ok(text.includes(secret), `${where} holds a password`);
  }
  assert.ok(outputs.sink.includes('"principal_key":"alice"'), 'the sink holds alice\'s flows');
});

test.run();
