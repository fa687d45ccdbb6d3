import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TargetRefusedError } from '../../../actors/errors/flow-failure.js';
import { DirectOutbound } from '../../../actors/outbounds/direct-outbound.js';
import { failureOf } from './failure-of.js';
import { greetingOrigin, readBytes } from './loopback.js';

const GREETING = 'hello from origin\n';
const OPTS = { connectTimeoutMs: 2000 };

test('dials an IPv4 literal and gives it as the resolved address', async () => {
  const origin = await greetingOrigin(GREETING);
  const dial = await new DirectOutbound('direct').dial({ host: '127.0.0.1', port: origin.port }, OPTS);
  assert.is(await readBytes(dial.socket, GREETING.length), GREETING);
  assert.is(dial.resolved_ip, '127.0.0.1');
  assert.equal(dial.relay_chain, []);
  assert.equal(dial.handshake, { rx: 0, tx: 0 });
  dial.socket.destroy();
  await origin.close();
});

test('gives the address a host name was reached at', async () => {
  const origin = await greetingOrigin(GREETING);
  const dial = await new DirectOutbound('direct').dial({ host: 'localhost', port: origin.port }, OPTS);
  // The origin listens on 127.0.0.1 only, whatever else localhost resolves to.
  assert.is(dial.resolved_ip, '127.0.0.1');
  dial.socket.destroy();
  await origin.close();
});

test('never dials the unspecified address, which a connect takes for this host: TARGET_INVALID', async () => {
  const origin = await greetingOrigin(GREETING);
  for (const host of ['0.0.0.0', '0', '::', '::ffff:0.0.0.0']) {
    const failure = await failureOf(new DirectOutbound('direct').dial({ host, port: origin.port }, OPTS));
    assert.equal([failure.code, failure.stage], ['TARGET_INVALID', 'connect'], host);
  }
  assert.is(origin.accepted, 0, 'the origin on 127.0.0.1 got no connection');
  await origin.close();
});

test('a name is dialled at its addresses other than the unspecified one; with only that, it fails DNS_FAILED', async () => {
  const origin = await greetingOrigin(GREETING);
  const sinkholed = new DirectOutbound('direct', async () => ['0.0.0.0', '127.0.0.1']);
  const dial = await sinkholed.dial({ host: 'sinkholed.example', port: origin.port }, OPTS);
  assert.is(dial.resolved_ip, '127.0.0.1');
  dial.socket.destroy();
  const only = await failureOf(new DirectOutbound('direct', async () => ['0.0.0.0']).dial({ host: 'blocked.example', port: origin.port }, OPTS));
  assert.equal([only.code, only.stage], ['DNS_FAILED', 'resolve']);
  await origin.close();
});

test('dials the addresses routing judged, and asks no resolver again', async () => {
  const origin = await greetingOrigin(GREETING);
  let asked = 0;
  const direct = new DirectOutbound('direct', async () => {
    asked++;
    return ['127.0.0.2'];
  });
  const dial = await direct.dial({ host: 'rebind.example', port: origin.port }, { ...OPTS, addresses: async () => ['127.0.0.1'] });
  assert.equal([dial.resolved_ip, asked], ['127.0.0.1', 0]);
  dial.socket.destroy();
  await origin.close();
});

test('with refusePrivate, a literal or a name with any private address is refused, TargetRefusedError TARGET_PRIVATE, before a connect', async () => {
  const origin = await greetingOrigin(GREETING);
  const cases: [string, string[], string, string][] = [
    ['127.0.0.1', [], '127.0.0.1', '127.0.0.1 is a loopback address (route.block_private)'],
    ['::ffff:7f00:1', [], '127.0.0.1', '127.0.0.1 is a loopback address (route.block_private)'],
    ['db.example', ['10.0.0.7'], '10.0.0.7', 'db.example resolves to 10.0.0.7, which is a private address (route.block_private)'],
    ['mixed.example', ['192.0.43.10', '169.254.169.254'], '169.254.169.254', 'mixed.example resolves to 169.254.169.254, which is a linkLocal address (route.block_private)'],
  ];
  for (const [host, addresses, refused, message] of cases) {
    const failure = await failureOf(new DirectOutbound('direct', async () => addresses).dial({ host, port: origin.port }, { ...OPTS, refusePrivate: true }));
    assert.instance(failure, TargetRefusedError, host);
    assert.equal(failure.toFailure(), { stage: 'connect', code: 'TARGET_PRIVATE', message, remote: { host: refused, port: origin.port } }, host);
  }
  assert.is(origin.accepted, 0, 'nothing was dialled');
  const allowed = await new DirectOutbound('direct').dial({ host: '127.0.0.1', port: origin.port }, { ...OPTS, refusePrivate: false });
  allowed.socket.destroy();
  await origin.close();
});

test.run();
