import { lookup } from 'node:dns/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Router, routeContext } from '../../../actors/router/router.js';

const RULES = [
  { domain_suffix: ['ads.example'], outbound: 'block' },
  { ip_cidr: ['10.0.0.0/8'], outbound: 'direct' },
  { domain_suffix: ['example.com'], port: [443], outbound: 'proxy' },
];

function ctx(host: string, port = 443): ReturnType<typeof routeContext> {
  return routeContext({ host, port, network: 'tcp', inbound: 'mixed-in', principal: null });
}

test('routeContext sets ip only for an IP literal host', () => {
  assert.is(ctx('10.1.1.1').ip, '10.1.1.1');
  assert.is(ctx('::1').ip, '::1');
  assert.is(ctx('example.com').ip, null);
});

// Hosts getaddrinfo reads as an IPv4 address (inet_aton), each with that address.
const NUMERIC_IPV4: Record<string, string> = {
  '127.1': '127.0.0.1',
  '2130706433': '127.0.0.1',
  '0x7f000001': '127.0.0.1',
  '0177.0.0.1': '127.0.0.1',
  '0X7F.0.0.1': '127.0.0.1',
  '127.0x1': '127.0.0.1',
  '127.256': '127.0.1.0',
  '1.2.3': '1.2.0.3',
  '127.0.0.01': '127.0.0.1',
  '010.1.1.1': '8.1.1.1',
  '0': '0.0.0.0',
  '0xffffffff': '255.255.255.255',
};

test('routeContext gives a numeric IPv4 host in any inet_aton form the address getaddrinfo connects to', async () => {
  for (const [host, address] of Object.entries(NUMERIC_IPV4)) {
    assert.is(ctx(host).ip, address, host);
    // What net.connect's lookup makes of the same host: the dial goes there.
    assert.is((await lookup(host, { family: 4 })).address, address, `${host} as getaddrinfo reads it`);
  }
  // Names to getaddrinfo (a DNS query, not an address): no ip, as for any name.
  for (const host of ['127.0.0.1.', '089.0.0.1', '1.2.3.4.5', '4294967296', '127.0.65536', '0x', '0x7g.1', '127..1', '1e2']) {
    assert.is(ctx(host).ip, null, host);
  }
});

test('routeContext writes IPv6 in RFC 5952 form without a zone, a mapped IPv4 address as that address', () => {
  assert.is(ctx('::ffff:7f00:1').ip, '127.0.0.1');
  assert.is(ctx('0:0:0:0:0:ffff:127.0.0.1').ip, '127.0.0.1');
  assert.is(ctx('::FFFF:7F00:1').ip, '127.0.0.1');
  assert.is(ctx('2001:DB8:0:0:0:0:0:1').ip, '2001:db8::1');
  assert.is(ctx('fe80::1%eth0').ip, 'fe80::1');
  // IPv4-compatible (deprecated) is not mapped: a connect to it does not reach 1.2.3.4.
  assert.is(ctx('::1.2.3.4').ip, '::1.2.3.4');
});

test('a block rule on 127.0.0.0/8 or localhost is not bypassed by another spelling of the host', async () => {
  const router = new Router({
    mode: 'rule',
    rules: [
      { domain_suffix: ['localhost'], outbound: 'block' },
      { ip_cidr: ['127.0.0.0/8'], outbound: 'block' },
    ],
    final: 'direct',
  });
  for (const host of ['127.1', '2130706433', '0x7f000001', '0177.0.0.1', '::ffff:7f00:1', '0:0:0:0:0:ffff:127.0.0.1']) {
    assert.equal((await router.decide(ctx(host))).matched_rule, { index: 1, condition: 'ip_cidr=127.0.0.0/8' }, host);
  }
  for (const host of ['LOCALHOST.', 'db.localhost.']) {
    assert.equal((await router.decide(ctx(host))).matched_rule, { index: 0, condition: 'domain_suffix=localhost' }, host);
  }
});

test('rule mode picks the first matching rule and reports its index and condition', async () => {
  const router = new Router({ mode: 'rule', rules: RULES, final: 'fallback' });
  assert.equal(await router.decide(ctx('x.ads.example')), {
    mode: 'rule',
    target: 'block',
    matched_rule: { index: 0, condition: 'domain_suffix=ads.example' },
  });
  assert.equal(await router.decide(ctx('10.2.3.4')), {
    mode: 'rule',
    target: 'direct',
    matched_rule: { index: 1, condition: 'ip_cidr=10.0.0.0/8' },
  });
  assert.equal(await router.decide(ctx('www.example.com')), {
    mode: 'rule',
    target: 'proxy',
    matched_rule: { index: 2, condition: 'domain_suffix=example.com && port=443' },
  });
});

test('an earlier rule wins over a later one that also matches', async () => {
  const router = new Router({
    mode: 'rule',
    rules: [
      { port: [443], outbound: 'first' },
      { port: [443], outbound: 'second' },
    ],
    final: 'fallback',
  });
  assert.equal((await router.decide(ctx('a.io'))).matched_rule, { index: 0, condition: 'port=443' });
});

test('without a matching rule the flow goes to final with index -1 and condition final', async () => {
  const router = new Router({ mode: 'rule', rules: RULES, final: 'fallback' });
  assert.equal(await router.decide(ctx('www.example.com', 80)), {
    mode: 'rule',
    target: 'fallback',
    matched_rule: { index: -1, condition: 'final' },
  });
  assert.equal((await new Router({ mode: 'rule', rules: [], final: 'direct' }).decide(ctx('a.io'))).matched_rule, {
    index: -1,
    condition: 'final',
  });
});

test('global mode sends every flow to the global target, past the rules', async () => {
  const router = new Router({ mode: 'global', globalTarget: 'hop-a', rules: RULES, final: 'fallback' });
  assert.equal(router.mode, { mode: 'global', global_target: 'hop-a' });
  assert.equal(await router.decide(ctx('x.ads.example')), {
    mode: 'global',
    target: 'hop-a',
    matched_rule: { index: -1, condition: 'global' },
  });
});

test('setMode switches between rule and global at run time', async () => {
  const router = new Router({ mode: 'rule', rules: RULES, final: 'fallback' });
  assert.equal(router.mode, { mode: 'rule', global_target: null });
  router.setMode('global', 'hop-b');
  assert.equal(router.mode, { mode: 'global', global_target: 'hop-b' });
  assert.is((await router.decide(ctx('10.0.0.1'))).target, 'hop-b');
  router.setMode('rule', 'hop-b');
  assert.equal(router.mode, { mode: 'rule', global_target: null }, 'rule mode keeps no global target');
  assert.equal(await router.decide(ctx('10.0.0.1')), {
    mode: 'rule',
    target: 'direct',
    matched_rule: { index: 1, condition: 'ip_cidr=10.0.0.0/8' },
  });
});

/** A lookup that answers `addresses` (or rejects ENOTFOUND for null) and counts its calls. */
function answering(addresses: string[] | null): { calls: number; lookup: () => Promise<readonly string[]> } {
  const counter = {
    calls: 0,
    lookup: () => {
      counter.calls++;
      return addresses ? Promise.resolve(addresses) : Promise.reject(Object.assign(new Error('no such name'), { code: 'ENOTFOUND' }));
    },
  };
  return counter;
}

test('a name meets ip_cidr rules by its addresses, looked up once, when evaluation first reaches such a rule', async () => {
  const router = new Router({
    mode: 'rule',
    rules: [
      { domain_suffix: ['ads.example'], outbound: 'block' },
      { ip_cidr: ['192.168.0.0/16'], outbound: 'lan' },
      { ip_cidr: ['10.0.0.0/8'], outbound: 'direct' },
    ],
    final: 'proxy',
  });
  const domainRule = answering(['10.1.1.1']);
  assert.is((await router.decide(ctx('x.ads.example'), domainRule.lookup)).target, 'block');
  assert.is(domainRule.calls, 0, 'a domain rule decided before any ip_cidr rule: no lookup');
  const ten = answering(['10.1.1.1']);
  assert.equal(await router.decide(ctx('db.internal'), ten.lookup), { mode: 'rule', target: 'direct', matched_rule: { index: 2, condition: 'ip_cidr=10.0.0.0/8' } });
  assert.is(ten.calls, 1, 'two ip_cidr rules, one lookup');
  assert.is((await router.decide(ctx('10.2.2.2'), answering(null).lookup)).target, 'direct', 'a literal is its own address');
});

test('a decision that needs no lookup is no promise; one that waits for a lookup is', async () => {
  const router = new Router({ mode: 'rule', rules: RULES, final: 'final' });
  const decided = answering(['10.1.1.1']);
  assert.not.instance(router.decide(ctx('x.ads.example'), decided.lookup), Promise, 'a rule before any ip_cidr decided');
  assert.not.instance(router.decide(ctx('10.2.3.4'), decided.lookup), Promise, 'a literal meets ip_cidr by itself');
  assert.not.instance(new Router({ mode: 'rule', rules: [], final: 'direct' }).decide(ctx('a.io')), Promise, 'final');
  assert.is(decided.calls, 0);
  const waits = router.decide(ctx('db.internal'), decided.lookup);
  assert.instance(waits, Promise);
  assert.equal(await waits, { mode: 'rule', target: 'direct', matched_rule: { index: 1, condition: 'ip_cidr=10.0.0.0/8' } });
});

test('a name with several addresses matches an ip_cidr rule when any one of them is in it', async () => {
  const router = new Router({ mode: 'rule', rules: [{ ip_cidr: ['127.0.0.0/8', '::1/128'], outbound: 'block' }], final: 'direct' });
  assert.is((await router.decide(ctx('mixed.example'), answering(['192.0.43.10', '127.0.0.1']).lookup)).target, 'block');
  assert.is((await router.decide(ctx('v6.example'), answering(['2001:db8::1', '::1']).lookup)).target, 'block');
  assert.is((await router.decide(ctx('public.example'), answering(['192.0.43.10']).lookup)).target, 'direct');
});

test('a name that does not resolve meets no ip_cidr rule; no_resolve keeps a rule to IP literals', async () => {
  const router = new Router({
    mode: 'rule',
    rules: [
      { ip_cidr: ['127.0.0.0/8'], no_resolve: true, outbound: 'literal' },
      { ip_cidr: ['0.0.0.0/0', '::/0'], outbound: 'any' },
    ],
    final: 'final',
  });
  assert.is((await router.decide(ctx('gone.example'), answering(null).lookup)).target, 'final');
  assert.is((await router.decide(ctx('localhost'), answering(['127.0.0.1']).lookup)).target, 'any');
  assert.is((await router.decide(ctx('127.0.0.1'))).target, 'literal');
  const noLookup = answering(['127.0.0.1']);
  const literalOnly = new Router({ mode: 'rule', rules: [{ ip_cidr: ['127.0.0.0/8'], no_resolve: true, outbound: 'block' }], final: 'direct' });
  assert.is((await literalOnly.decide(ctx('localhost'), noLookup.lookup)).target, 'direct');
  assert.is(noLookup.calls, 0, 'a no_resolve rule asks for no lookup');
});

test('without a lookup (UDP) a name meets no ip_cidr rule', async () => {
  const router = new Router({ mode: 'rule', rules: [{ ip_cidr: ['0.0.0.0/0'], outbound: 'block' }], final: 'direct' });
  assert.is((await router.decide(ctx('localhost'))).target, 'direct');
});

test.run();
