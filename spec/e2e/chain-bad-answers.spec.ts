import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { curl } from '../support/curl.js';
import { fixture } from '../support/fixture.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { eventsPath } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { fakeHttp } from '../unit/outbounds/fake-http.js';
import { fakeSocks } from '../unit/outbounds/fake-socks.js';
import { assertHopFailed, startChainNode, type RouteExpectation } from '../support/chain-expect.js';

/**
 * Upstream proxies that answer what no well-behaved one does, through a real node:
 * each flow fails with the code of what the hop did, relays nothing, and no answer of
 * a hop is taken for tunnel bytes.
 */
const ECHO_USER = { username: 'weir', password: 'echoed-pass-6a1d' };

const ROUTED = ['odd-atyp', 'not-socks', 'unassigned', 'asks-login', 'echo-auth'] as const;
type Routed = (typeof ROUTED)[number];

/** What an HTTP hop says when it copies the request's Proxy-Authorization into its reason phrase. */
function echoAuthorization(head: string): string {
  const line = head.split('\r\n').find((l) => l.startsWith('Proxy-Authorization')) ?? '';
  return `HTTP/1.1 403 ${line}\r\nContent-Length: 0\r\n\r\n`;
}

const setup = fixture(
  test,
  async () => {
    const hops = {
      // A success reply whose address type (7) does not exist: its length is unknown.
      oddAtyp: await fakeSocks({ successReply: Buffer.from([5, 0, 0, 7, 1, 2, 3, 4, 5, 6]) }),
      notSocks: await fakeSocks({ connectAnswer: Buffer.from('HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n') }),
      unassigned: await fakeSocks({ reply: 9 }),
      // Offered no-auth only, it picks username/password all the same.
      asksLogin: await fakeSocks({ chooseMethod: 2 }),
      echoAuth: await fakeHttp({ answer: echoAuthorization }),
    };
    const origin = await startOrigin();
    const socks = (tag: string, port: number): Record<string, unknown> => ({ type: 'socks', tag, server: '127.0.0.1', port });
    const { node, stateDir } = await startChainNode(
      [
        { type: 'direct', tag: 'direct' },
        socks('odd-atyp', hops.oddAtyp.port),
        socks('not-socks', hops.notSocks.port),
        socks('unassigned', hops.unassigned.port),
        socks('asks-login', hops.asksLogin.port),
        { type: 'http', tag: 'echo-auth', server: '127.0.0.1', port: hops.echoAuth.port, ...ECHO_USER },
      ],
      ROUTED,
    );
    return { origin, node, hops, events: eventsPath(stateDir) };
  },
  async ({ origin, node, hops }) => {
    await node.stop();
    await Promise.all([origin.close(), ...Object.values(hops).map((h) => h.close())]);
  },
);

/** curl through the inbound of `via` must fail; returns the hop's failure message after checking the rest. */
async function failedThrough(via: Routed, code: string, hopPort: number): Promise<string> {
  const { origin, node, events } = await setup();
  const known = knownFlows(events);
  const res = await curl(['--socks5-hostname', `127.0.0.1:${node.ports[`in-${via}`]}`, origin.url(`/bytes/10?via=${via}`)]);
  assert.is.not(res.code, 0, 'curl fails');
  assert.is(res.body.length, 0, 'the client got nothing of the hop\'s answer');
  const route: RouteExpectation = { inbound: `in-${via}`, index: ROUTED.indexOf(via), selection_chain: [via] };
  const target = { host: '127.0.0.1', port: origin.port };
  return assertHopFailed(await nextFlow(events, known), route, target, { stage: `hop:${via}`, code, remote: { host: '127.0.0.1', port: hopPort } });
}

test('a SOCKS5 success reply with an unknown address type is HOP_PROTOCOL_ERROR, not a tunnel carrying the reply', async () => {
  const { hops } = await setup();
  const message = await failedThrough('odd-atyp', 'HOP_PROTOCOL_ERROR', hops.oddAtyp.port);
  assert.match(message, 'address type 7');
});

test('a CONNECT answered with something that is not SOCKS5 is HOP_PROTOCOL_ERROR', async () => {
  const { hops } = await setup();
  const message = await failedThrough('not-socks', 'HOP_PROTOCOL_ERROR', hops.notSocks.port);
  assert.match(message, 'version 72');
});

test('a CONNECT answered with an unassigned reply code is HOP_REJECTED naming the code', async () => {
  const { origin, hops } = await setup();
  const message = await failedThrough('unassigned', 'HOP_REJECTED', hops.unassigned.port);
  assert.is(message, `hop "unassigned" (socks 127.0.0.1:${hops.unassigned.port}) answered CONNECT 127.0.0.1:${origin.port} with: reply code 9`);
});

test('a hop that picks username/password none are configured for is HOP_AUTH_FAILED, and is sent no empty login', async () => {
  const { hops } = await setup();
  const message = await failedThrough('asks-login', 'HOP_AUTH_FAILED', hops.asksLogin.port);
  assert.match(message, 'requires authentication and no username/password is configured');
  assert.equal(hops.asksLogin.logins, []);
});

test('an HTTP hop that echoes the credentials in its reason phrase: they are in no failure message', async () => {
  const { hops, origin } = await setup();
  const message = await failedThrough('echo-auth', 'HOP_REJECTED', hops.echoAuth.port);
  // The standard reason phrase of the status, none of the hop's own text.
  assert.is(message, `hop "echo-auth" (http 127.0.0.1:${hops.echoAuth.port}) answered CONNECT 127.0.0.1:${origin.port} with 403 Forbidden`);
});

test('no hop credential reaches the sink or the log, and every flow is complete', async () => {
  const { node, events } = await setup();
  await stopAndAudit(node, events);
  const text = fs.readFileSync(events, 'utf8') + node.stdout() + node.stderr();
  const token = Buffer.from(`${ECHO_USER.username}:${ECHO_USER.password}`).toString('base64');
  for (const secret of [ECHO_USER.password, token]) assert.not.ok(text.includes(secret), 'a hop credential is in the sink file or the log');
});

test.run();
