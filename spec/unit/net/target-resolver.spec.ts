import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { privateRange } from '../../../actors/net/private-address.js';
import { targetAddresses, targetResolver } from '../../../actors/net/target-resolver.js';
import { startDnsResponder } from '../../support/dns-responder.js';
import { rejectionOf } from '../../support/rejection.js';

test('dns.hosts answers first, in any case and with a trailing dot, IPv4-mapped written as IPv4', async () => {
  const resolve = targetResolver({ hosts: { 'Db.Test': ['10.0.0.7', '::ffff:10.0.0.8'], 'one.test': '::1' } });
  assert.equal(await resolve('db.test'), ['10.0.0.7', '10.0.0.8']);
  assert.equal(await resolve('DB.TEST.'), ['10.0.0.7', '10.0.0.8']);
  assert.equal(await resolve('one.test'), ['::1']);
  // Not listed: the system resolver (getaddrinfo reads "127.1" as 127.0.0.1 without DNS).
  assert.equal(await resolve('127.1'), ['127.0.0.1']);
});

test('dns.servers are asked for A and AAAA together; no such name fails ENOTFOUND, no answer EAI_AGAIN', async () => {
  const dns = await startDnsResponder((name, type) => {
    if (name === 'both.test') return type === 'A' ? ['10.1.1.1'] : ['fd00::1'];
    if (name === 'v6.test') return type === 'AAAA' ? ['::1'] : [];
    return null;
  });
  const resolve = targetResolver({ hosts: { 'fixed.test': '192.0.2.1' }, servers: [dns.server] });
  assert.equal(await resolve('both.test'), ['10.1.1.1', 'fd00::1']);
  assert.equal(await resolve('v6.test'), ['::1']);
  assert.equal(await resolve('fixed.test'), ['192.0.2.1']);
  assert.not.ok(dns.questions.some((q) => q.endsWith('fixed.test')), 'a hosts name is not asked');
  const missing = (await rejectionOf(resolve('missing.test'))) as NodeJS.ErrnoException;
  assert.equal([missing.code, missing.message], ['ENOTFOUND', 'missing.test: A ENOTFOUND, AAAA ENOTFOUND']);
  await dns.close();
  // The server is gone: the queries are refused, a failure that is not a missing name.
  const silent = (await rejectionOf(targetResolver({ hosts: {}, servers: [dns.server] })('both.test'))) as NodeJS.ErrnoException;
  assert.is(silent.code, 'EAI_AGAIN');
});

test('a flow\'s addresses are looked up once however often asked; a literal is its own address', async () => {
  let asked = 0;
  const resolve = async (): Promise<string[]> => {
    asked++;
    return ['10.0.0.1'];
  };
  const name = targetAddresses('db.test', resolve);
  assert.equal([await name(), await name(), asked], [['10.0.0.1'], ['10.0.0.1'], 1]);
  assert.equal([await targetAddresses('0x7f000001', resolve)(), asked], [['127.0.0.1'], 1]);
});

test('privateRange names the ranges route.block_private refuses, null for public unicast', () => {
  const ranges: Record<string, string | null> = {
    '127.0.0.1': 'loopback',
    '::1': 'loopback',
    '10.1.2.3': 'private',
    '172.16.0.1': 'private',
    '192.168.1.1': 'private',
    '169.254.169.254': 'linkLocal',
    'fe80::1': 'linkLocal',
    'fd00::1': 'uniqueLocal',
    '100.64.0.1': 'carrierGradeNat',
    '0.0.0.0': 'unspecified',
    '::': 'unspecified',
    '224.0.0.1': 'multicast',
    'ff02::1': 'multicast',
    '255.255.255.255': 'broadcast',
    '240.0.0.1': 'reserved',
    '::ffff:10.0.0.1': 'private',
    '192.0.43.10': null,
    '2606:4700::1111': null,
    'not-an-ip': 'malformed',
  };
  for (const [ip, range] of Object.entries(ranges)) assert.is(privateRange(ip), range, ip);
});

test.run();
