import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { OutboundSet } from '../../../actors/outbounds/outbound-set.js';
import { SelectorPolicy } from '../../../actors/outbounds/selector-policy.js';
import { UrlTestPolicy } from '../../../actors/outbounds/url-test-policy.js';
import { Router } from '../../../actors/router/router.js';
import { applyRoutingState, routingStateOf } from '../../../actors/workers/routing-state.js';

function node(): { router: Router; outbounds: OutboundSet } {
  const policies = new Map<string, SelectorPolicy | UrlTestPolicy>([
    ['proxy', new SelectorPolicy('proxy', ['direct', 'block'], 'direct')],
    ['auto', new UrlTestPolicy('auto', ['hop-a', 'hop-b'])],
  ]);
  return { router: new Router({ mode: 'rule', rules: [], final: 'direct' }), outbounds: new OutboundSet(new Map(), policies) };
}

test('a worker takes the hub\'s mode, selector pick and url_test choice', () => {
  const hub = node();
  hub.router.setMode('global', 'proxy');
  (hub.outbounds.policies.get('proxy') as SelectorPolicy).select('block');
  (hub.outbounds.policies.get('auto') as UrlTestPolicy).choose('hop-b');
  const state = routingStateOf(hub.router, hub.outbounds, false);
  assert.equal(state, { mode: 'global', global_target: 'proxy', selections: { proxy: 'block', auto: 'hop-b' }, reload: false });

  const worker = node();
  applyRoutingState(JSON.parse(JSON.stringify(state)) as typeof state, worker.router, worker.outbounds);
  assert.equal(routingStateOf(worker.router, worker.outbounds, false), state);
});

test('a group or member the worker does not know is passed over', () => {
  const worker = node();
  applyRoutingState({ mode: 'rule', global_target: null, selections: { ghost: 'direct', proxy: 'nobody' }, reload: false }, worker.router, worker.outbounds);
  assert.equal(routingStateOf(worker.router, worker.outbounds, false).selections, { proxy: 'direct', auto: 'hop-a' });
});

test.run();
