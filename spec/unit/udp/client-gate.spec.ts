import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ClientGate } from '../../../actors/udp/client-gate.js';

const ANY = { host: '0.0.0.0', port: 0 };

test('admits datagrams from the control connection peer only', () => {
  const gate = new ClientGate('127.0.0.1', ANY);
  assert.not.ok(gate.admits('127.0.0.2', 5000));
  assert.ok(gate.admits('127.0.0.1', 5000));
});

test('takes an IPv4-mapped IPv6 address for the IPv4 address it carries', () => {
  const gate = new ClientGate('::ffff:127.0.0.1', ANY);
  assert.is(gate.ip, '127.0.0.1');
  assert.ok(gate.admits('127.0.0.1', 5000));
  assert.ok(gate.admits('::ffff:127.0.0.1', 5000));
});

test('learns the port from the first datagram and refuses other ports after it', () => {
  const gate = new ClientGate('127.0.0.1', ANY);
  assert.is(gate.clientPort, null);
  assert.ok(gate.admits('127.0.0.1', 40000));
  assert.is(gate.clientPort, 40000);
  assert.not.ok(gate.admits('127.0.0.1', 40001));
  assert.ok(gate.admits('127.0.0.1', 40000));
});

test('takes the requested port when the request names no address or the peer itself', () => {
  assert.is(new ClientGate('127.0.0.1', { host: '0.0.0.0', port: 7000 }).clientPort, 7000);
  assert.is(new ClientGate('::1', { host: '::', port: 7001 }).clientPort, 7001);
  const gate = new ClientGate('127.0.0.1', { host: '127.0.0.1', port: 7002 });
  assert.not.ok(gate.admits('127.0.0.1', 7003));
  assert.ok(gate.admits('127.0.0.1', 7002));
});

test('ignores the requested port when the request names another address (a client behind NAT)', () => {
  const gate = new ClientGate('203.0.113.9', { host: '192.168.1.20', port: 7000 });
  assert.is(gate.clientPort, null);
  assert.ok(gate.admits('203.0.113.9', 61000));
  assert.is(gate.clientPort, 61000);
});

test.run();
