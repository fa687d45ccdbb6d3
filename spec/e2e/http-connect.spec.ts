import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { authFailures } from '../support/auth-failures.js';
import { curl } from '../support/curl.js';
import { WAIT_MS } from '../support/far-bound.js';
import { assertDirectDownload } from '../support/direct-download.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { proxyFixture } from '../support/proxy-fixture.js';
import { waitFor } from '../support/wait-for.js';

const INBOUND = { tag: 'http-in', protocol: 'http' };
const DAVE_PW = 'dave-Pw-9a71f0d3';
const GUARDED = { tag: 'http-auth', protocol: 'http' };

const setup = proxyFixture(test, {
  inbounds: [
    { type: 'http', tag: INBOUND.tag },
    { type: 'http', tag: GUARDED.tag, users: [{ username: 'dave', password: DAVE_PW }] },
  ],
});

test('tunnels a curl request through HTTP CONNECT as one direct_relayed flow', async () => {
  const { origin, events, proxy } = await setup();
  await assertDirectDownload(origin, events, { via: ['-p', '-x', `http://${proxy(INBOUND.tag)}`], inbound: INBOUND, bytes: 5000, label: 'http-connect' });
});

test('authenticates a CONNECT with HTTP basic credentials', async () => {
  const { origin, events, proxy } = await setup();
  await assertDirectDownload(origin, events, {
    via: ['-p', '-x', `http://dave:${DAVE_PW}@${proxy(GUARDED.tag)}`],
    inbound: GUARDED,
    auth: { scheme: 'http_basic', principal_key: 'dave', attributes: { username: 'dave' } },
    bytes: 64,
    label: 'http-connect-auth',
  });
});

test('refuses a CONNECT without credentials with 407 and no flow', async () => {
  const { origin, events, proxy } = await setup();
  const known = knownFlows(events);
  const refused = await curl(['-p', '-x', `http://${proxy(GUARDED.tag)}`, origin.url('/bytes/1')]);
  assert.is.not(refused.code, 0);
  assert.match(refused.stderr, /407/);
  const ok = await curl(['-p', '-x', `http://${proxy(INBOUND.tag)}`, origin.url('/bytes/1?case=after-407')]);
  assert.is(ok.code, 0, ok.stderr);
  // The good request is the only new flow: the 407 opened none.
  await nextFlow(events, known);
});

test('a CONNECT with a wrong password gets 407 and a log line naming the user, not the password', async () => {
  const { node, proxy, origin } = await setup();
  const logged = authFailures(node.stdout()).length;
  const refused = await curl(['-p', '-x', `http://dave:not-dave-pw@${proxy(GUARDED.tag)}`, origin.url('/bytes/1')]);
  assert.match(refused.stderr, /407/);
  const lines = await waitFor(() => (authFailures(node.stdout()).length > logged ? authFailures(node.stdout()).slice(logged) : null), WAIT_MS, 'the log line');
  assert.equal(lines, [{ inbound: GUARDED.tag, username: 'dave' }]);
  assert.not.ok(node.stdout().includes('not-dave-pw'));
});

test('writes a sink file of valid envelopes with every flow complete, without the password', async () => {
  const { node, events } = await setup();
  const all = await stopAndAudit(node, events);
  assert.not.ok(JSON.stringify(all).includes(DAVE_PW));
  assert.not.ok(node.stdout().includes(DAVE_PW) || node.stderr().includes(DAVE_PW));
});

test.run();
