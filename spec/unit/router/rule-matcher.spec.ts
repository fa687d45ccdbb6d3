import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { RouteContext } from '../../../actors/contracts/rule.js';
import { compileRule, type RuleSpec } from '../../../actors/router/rule-matcher.js';
import { routeContext } from '../../../actors/router/router.js';

function ctx(fields: Partial<Omit<RouteContext, 'ip'>> = {}): RouteContext {
  return routeContext({ host: 'www.example.com', port: 443, network: 'tcp', inbound: 'mixed-in', principal: null, ...fields });
}

function matches(spec: Omit<RuleSpec, 'outbound'>, fields: Partial<Omit<RouteContext, 'ip'>>): boolean {
  return compileRule({ ...spec, outbound: 'x' }).match(ctx(fields));
}

test('domain matches the whole host only, ignoring case', () => {
  const spec = { domain: ['Example.com'] };
  assert.ok(matches(spec, { host: 'example.com' }));
  assert.ok(matches(spec, { host: 'EXAMPLE.COM' }));
  assert.not.ok(matches(spec, { host: 'www.example.com' }));
  assert.not.ok(matches(spec, { host: 'example.com.evil' }));
});

test('domain_suffix matches the domain itself and its subdomains, not a longer label', () => {
  const spec = { domain_suffix: ['example.com'] };
  assert.ok(matches(spec, { host: 'example.com' }));
  assert.ok(matches(spec, { host: 'a.b.example.com' }));
  assert.not.ok(matches(spec, { host: 'badexample.com' }));
  assert.not.ok(matches(spec, { host: 'example.com.au' }));
});

test('domain_suffix with a leading dot means the same as without', () => {
  const spec = { domain_suffix: ['.Example.com'] };
  assert.ok(matches(spec, { host: 'example.com' }));
  assert.ok(matches(spec, { host: 'cdn.example.com' }));
  assert.not.ok(matches(spec, { host: 'notexample.com' }));
});

test('domain conditions ignore one trailing dot, in the host and in the rule', () => {
  assert.ok(matches({ domain_suffix: ['blocked.test'] }, { host: 'X.BLOCKED.TEST.' }));
  assert.ok(matches({ domain_suffix: ['blocked.test'] }, { host: 'blocked.test.' }));
  assert.ok(matches({ domain: ['example.com'] }, { host: 'Example.COM.' }));
  assert.ok(matches({ domain: ['example.com.'] }, { host: 'example.com' }));
  assert.ok(matches({ domain_suffix: ['.example.com.'] }, { host: 'cdn.example.com' }));
  assert.ok(matches({ domain_suffix: ['example.com'] }, { host: '93.184.216.34', sniffed_host: 'www.example.com.' }));
  assert.not.ok(matches({ domain: ['example.com'] }, { host: 'example.com..' }));
});

test('domain_keyword matches any part of the host', () => {
  const spec = { domain_keyword: ['ads'] };
  assert.ok(matches(spec, { host: 'ads.example.com' }));
  assert.ok(matches(spec, { host: 'myADSserver.net' }));
  assert.not.ok(matches(spec, { host: 'example.com' }));
});

test('domain conditions also look at the sniffed host of a client that connected by IP', () => {
  assert.ok(matches({ domain_suffix: ['example.com'] }, { host: '93.184.216.34', sniffed_host: 'www.Example.com' }));
  assert.not.ok(matches({ domain_suffix: ['example.com'] }, { host: '93.184.216.34' }));
});

test('ip_cidr matches IPv4 and IPv6 subnets and a plain address', () => {
  const spec = { ip_cidr: ['10.0.0.0/8', '2001:db8::/32', '192.168.1.7'] };
  assert.ok(matches(spec, { host: '10.1.2.3' }));
  assert.not.ok(matches(spec, { host: '11.0.0.1' }));
  assert.ok(matches(spec, { host: '2001:db8:1::5' }));
  assert.not.ok(matches(spec, { host: '2001:db9::1' }));
  assert.ok(matches(spec, { host: '192.168.1.7' }));
  assert.not.ok(matches(spec, { host: '192.168.1.8' }));
});

test('ip_cidr never matches a domain target', () => {
  assert.not.ok(matches({ ip_cidr: ['0.0.0.0/0', '::/0'] }, { host: 'example.com' }));
});

test('ip_cidr keeps the families apart', () => {
  assert.not.ok(matches({ ip_cidr: ['::/0'] }, { host: '10.0.0.1' }));
  assert.not.ok(matches({ ip_cidr: ['0.0.0.0/0'] }, { host: '::1' }));
});

test('ip_cidr checks an IPv4-mapped IPv6 target as its IPv4 address', () => {
  assert.ok(matches({ ip_cidr: ['10.0.0.0/8'] }, { host: '::ffff:10.1.2.3' }));
  assert.not.ok(matches({ ip_cidr: ['::/0'] }, { host: '::FFFF:10.1.2.3' }));
});

test('ip_cidr checks an IPv4-mapped target in any spelling as its IPv4 address', () => {
  for (const host of ['::ffff:7f00:1', '0:0:0:0:0:ffff:127.0.0.1', '::FFFF:7F00:0001']) {
    assert.ok(matches({ ip_cidr: ['127.0.0.0/8'] }, { host }), host);
    assert.not.ok(matches({ ip_cidr: ['::/0'] }, { host }), `${host} is not in ::/0`);
  }
});

test('ip_cidr checks a numeric IPv4 host in another form as the address it names', () => {
  for (const host of ['127.1', '2130706433', '0x7f000001', '0177.0.0.1']) {
    assert.ok(matches({ ip_cidr: ['127.0.0.0/8'] }, { host }), host);
    assert.not.ok(matches({ ip_cidr: ['10.0.0.0/8'] }, { host }), host);
  }
});

test('an IPv4-mapped block in the config meets the IPv4 addresses it carries, in any spelling', () => {
  const spec = { ip_cidr: ['::ffff:127.0.0.0/104', '::ffff:10.0.0.1'] };
  for (const host of ['127.0.0.5', '::ffff:7f00:5', '::ffff:127.0.0.5', '127.5', '10.0.0.1', '::ffff:a00:1']) {
    assert.ok(matches(spec, { host }), host);
  }
  for (const host of ['128.0.0.1', '10.0.0.2', '::1']) assert.not.ok(matches(spec, { host }), host);
});

test('port matches a number or an inclusive a-b range', () => {
  const spec = { port: [22, '8000-8080'] };
  assert.ok(matches(spec, { port: 22 }));
  assert.ok(matches(spec, { port: 8000 }));
  assert.ok(matches(spec, { port: 8080 }));
  assert.not.ok(matches(spec, { port: 8081 }));
  assert.not.ok(matches(spec, { port: 443 }));
  assert.ok(matches({ port: ['443'] }, { port: 443 }));
});

test('network, inbound and principal match their field', () => {
  assert.ok(matches({ network: ['udp'] }, { network: 'udp' }));
  assert.not.ok(matches({ network: ['udp'] }, { network: 'tcp' }));
  assert.ok(matches({ inbound: ['socks-in', 'mixed-in'] }, { inbound: 'mixed-in' }));
  assert.not.ok(matches({ inbound: ['socks-in'] }, { inbound: 'mixed-in' }));
  assert.ok(matches({ principal: ['alice'] }, { principal: 'alice' }));
  assert.not.ok(matches({ principal: ['alice'] }, { principal: 'bob' }));
  assert.not.ok(matches({ principal: ['alice'] }, { principal: null }));
});

test('fields are ANDed and the values of one field ORed', () => {
  const spec = { domain_suffix: ['a.com', 'b.com'], port: [443] };
  assert.ok(matches(spec, { host: 'x.a.com', port: 443 }));
  assert.ok(matches(spec, { host: 'b.com', port: 443 }));
  assert.not.ok(matches(spec, { host: 'x.a.com', port: 80 }));
  assert.not.ok(matches(spec, { host: 'c.com', port: 443 }));
});

test('empty value lists are no condition at all', () => {
  assert.ok(matches({ domain: [], port: [] }, { host: 'anything.example' }));
  assert.is(compileRule({ domain: [], outbound: 'x' }).condition, '');
});

test('the condition string names each field with its values, in a fixed order', () => {
  const rule = compileRule({
    principal: ['alice'],
    port: [443, '8000-8080'],
    ip_cidr: ['10.0.0.0/8'],
    domain_suffix: ['.example.com', 'example.org'],
    network: ['tcp'],
    outbound: 'proxy',
  });
  assert.is(rule.condition, 'domain_suffix=.example.com,example.org && ip_cidr=10.0.0.0/8 && port=443,8000-8080 && network=tcp && principal=alice');
  assert.is(rule.outbound, 'proxy');
});

test.run();
