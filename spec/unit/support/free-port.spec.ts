import { readFileSync } from 'node:fs';
import net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort, freePorts } from '../../support/free-port.js';

const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

function listenOn(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

test('ports are distinct, below the ephemeral range, and free to bind', async () => {
  const ports = await freePorts(6);
  assert.is(new Set(ports).size, 6);
  for (const port of ports) {
    assert.ok(port >= 20000 && port < ephemeralLow, `${port} is outside 20000-${ephemeralLow - 1}`);
    const server = await listenOn(port);
    await new Promise((resolve) => server.close(resolve));
  }
});

test('a candidate something listens on, or one already picked, is passed over', async () => {
  const [busyPort, freeA, freeB] = await freePorts(3);
  const busy = await listenOn(busyPort as number);
  try {
    const candidates = [busyPort, freeA, freeA, busyPort, freeB] as number[];
    assert.equal(await freePorts(2, () => candidates.shift() as number), [freeA, freeB]);
  } finally {
    await new Promise((resolve) => busy.close(resolve));
  }
});

test('a single port comes from the same range', async () => {
  const port = await freePort();
  assert.ok(port >= 20000 && port < ephemeralLow);
});

test.run();
