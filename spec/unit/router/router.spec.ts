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

test('rule mode picks the first matching rule and reports its index and condition', () => {
  const router = new Router({ mode: 'rule', rules: RULES, final: 'fallback' });
  assert.equal(router.decide(ctx('x.ads.example')), {
    mode: 'rule',
    target: 'block',
    matched_rule: { index: 0, condition: 'domain_suffix=ads.example' },
  });
  assert.equal(router.decide(ctx('10.2.3.4')), {
    mode: 'rule',
    target: 'direct',
    matched_rule: { index: 1, condition: 'ip_cidr=10.0.0.0/8' },
  });
  assert.equal(router.decide(ctx('www.example.com')), {
    mode: 'rule',
    target: 'proxy',
    matched_rule: { index: 2, condition: 'domain_suffix=example.com && port=443' },
  });
});

test('an earlier rule wins over a later one that also matches', () => {
  const router = new Router({
    mode: 'rule',
    rules: [
      { port: [443], outbound: 'first' },
      { port: [443], outbound: 'second' },
    ],
    final: 'fallback',
  });
  assert.equal(router.decide(ctx('a.io')).matched_rule, { index: 0, condition: 'port=443' });
});

test('without a matching rule the flow goes to final with index -1 and condition final', () => {
  const router = new Router({ mode: 'rule', rules: RULES, final: 'fallback' });
  assert.equal(router.decide(ctx('www.example.com', 80)), {
    mode: 'rule',
    target: 'fallback',
    matched_rule: { index: -1, condition: 'final' },
  });
  assert.equal(new Router({ mode: 'rule', rules: [], final: 'direct' }).decide(ctx('a.io')).matched_rule, {
    index: -1,
    condition: 'final',
  });
});

test('global mode sends every flow to the global target, past the rules', () => {
  const router = new Router({ mode: 'global', globalTarget: 'hop-a', rules: RULES, final: 'fallback' });
  assert.equal(router.mode, { mode: 'global', global_target: 'hop-a' });
  assert.equal(router.decide(ctx('x.ads.example')), {
    mode: 'global',
    target: 'hop-a',
    matched_rule: { index: -1, condition: 'global' },
  });
});

test('setMode switches between rule and global at run time', () => {
  const router = new Router({ mode: 'rule', rules: RULES, final: 'fallback' });
  assert.equal(router.mode, { mode: 'rule', global_target: null });
  router.setMode('global', 'hop-b');
  assert.equal(router.mode, { mode: 'global', global_target: 'hop-b' });
  assert.is(router.decide(ctx('10.0.0.1')).target, 'hop-b');
  router.setMode('rule', 'hop-b');
  assert.equal(router.mode, { mode: 'rule', global_target: null }, 'rule mode keeps no global target');
  assert.equal(router.decide(ctx('10.0.0.1')), {
    mode: 'rule',
    target: 'direct',
    matched_rule: { index: 1, condition: 'ip_cidr=10.0.0.0/8' },
  });
});

test.run();
