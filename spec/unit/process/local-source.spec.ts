import os from 'node:os';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LocalSource } from '../../../actors/process/local-source.js';

test('loopback addresses are local, in every spelling', () => {
  const local = new LocalSource();
  for (const ip of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) assert.ok(local.has(ip), ip);
});

test("this machine's interface addresses are local; others are not", () => {
  const local = new LocalSource();
  const mine = Object.values(os.networkInterfaces()).flat().map((i) => i!.address).filter((a) => a !== '127.0.0.1');
  for (const ip of mine) assert.ok(local.has(ip), ip);
  assert.not.ok(local.has('192.0.2.77'), 'TEST-NET-1');
  assert.not.ok(local.has('2001:db8::77'));
});

test.run();
