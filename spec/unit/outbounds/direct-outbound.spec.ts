import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DirectOutbound } from '../../../actors/outbounds/direct-outbound.js';
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

test.run();
