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

/** Ports the kernel picks (above the range freePorts draws from), so none was handed out yet. */
async function kernelPorts(count: number): Promise<number[]> {
  const servers = await Promise.all(Array.from({ length: count }, () => listenOn(0)));
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  return ports;
}

test('a candidate something listens on, or one handed out before, is passed over', async () => {
  const [handed] = await freePorts(1);
  const [busyPort, freeA, freeB, freeC] = await kernelPorts(4);
  const busy = await listenOn(busyPort as number);
  try {
    const candidates = [busyPort, handed, freeA, freeA, busyPort, handed, freeB] as number[];
    assert.equal(await freePorts(2, () => candidates.shift() as number), [freeA, freeB]);
    // Handed out once per test process: a later call does not get them again.
    const later = [freeA, freeB, freeC] as number[];
    assert.equal(await freePorts(1, () => later.shift() as number), [freeC]);
  } finally {
    await new Promise((resolve) => busy.close(resolve));
  }
});

test('a single port comes from the same range', async () => {
  const port = await freePort();
  assert.ok(port >= 20000 && port < ephemeralLow);
});

test.run();
