import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { LookupAddress } from 'node:dns';
import { dialableLookup } from '../../../actors/outbounds/dialable-target.js';
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

test('a name is dialled at its addresses other than the unspecified one', async () => {
  const lookup = (host: string): Promise<NodeJS.ErrnoException | string[]> =>
    new Promise((resolve) => dialableLookup(host, { all: true }, (err, all) => resolve(err ?? (all as unknown as LookupAddress[]).map((a) => a.address))));
  // getaddrinfo reads "0" as 0.0.0.0 without asking DNS: its only address is refused.
  const refused = await lookup('0');
  assert.instance(refused, Error);
  assert.is((refused as NodeJS.ErrnoException).code, 'ENOTFOUND');
  assert.ok((await lookup('localhost') as string[]).includes('127.0.0.1'));
});

test.run();
