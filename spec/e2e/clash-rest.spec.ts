import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WAIT_MS } from '../support/far-bound.js';
import { ofType, waitForEvents } from '../support/jsonl.js';
import { waitFor } from '../support/wait-for.js';
import { WsClient } from '../support/event-clients.js';
import { CLASH_KEY, clashFixture } from '../support/clash-fixture.js';

// The Clash endpoints clash-api.md marks required, with the exact fields and types the
// dashboards read, against a real `weir run`.
const setup = clashFixture(test);

test('GET / says hello with a string and /version is meta with a weir version', async () => {
  const { call } = await setup();
  assert.equal((await call('/')).json, { hello: 'weir' });
  const version = await call('/version');
  assert.is(version.status, 200);
  assert.is(version.json.meta, true);
  assert.type(version.json.version, 'string');
  assert.match(version.json.version, /^weir /);
});

test('a preflight is answered without the key; a wrong key is a 401 {message} that names the origin allowed', async () => {
  const { call } = await setup();
  const preflight = await call('/proxies/proxy', {
    method: 'OPTIONS',
    key: null,
    headers: { origin: 'http://dashboard.test', 'access-control-request-method': 'PUT', 'access-control-request-private-network': 'true' },
  });
  assert.is(preflight.status, 204);
  assert.is(preflight.headers.get('access-control-allow-origin'), '*');
  assert.is(preflight.headers.get('access-control-allow-methods'), 'GET, POST, PUT, PATCH, DELETE');
  assert.is(preflight.headers.get('access-control-allow-headers'), 'Content-Type, Authorization');
  assert.is(preflight.headers.get('access-control-max-age'), '300');
  assert.is(preflight.headers.get('access-control-allow-private-network'), 'true');
  for (const key of [null, 'wrong-key', '']) {
    const refused = await call('/version', { key, headers: { origin: 'http://dashboard.test' } });
    assert.is(refused.status, 401, `key ${String(key)}`);
    assert.equal(refused.json, { message: 'Unauthorized' });
    assert.is(refused.headers.get('access-control-allow-origin'), '*');
  }
  const ok = await call('/version', { headers: { origin: 'http://dashboard.test' } });
  assert.is(ok.headers.get('access-control-allow-origin'), '*');
  // weir's own API keeps its problem+json refusals.
  assert.is((await call('/api/v1/health', { key: null })).json.code, 'UNAUTHORIZED');
});

test('GET /configs has the mode, mode-list and log-level; PATCH switches the mode in any case, as weir mode does', async () => {
  const { call } = await setup();
  const config = await call('/configs');
  assert.is(config.json.mode, 'rule');
  assert.equal(config.json['mode-list'], ['rule', 'global', 'direct']);
  assert.is(config.json['log-level'], 'info');
  assert.is(typeof config.json['mixed-port'], 'number');
  assert.ok(config.json['mixed-port'] > 0);
  assert.is(config.json['allow-lan'], false);

  // yacd sends the mode capitalised.
  const patched = await call('/configs', { method: 'PATCH', body: '{"mode":"Global"}', headers: { 'content-type': 'application/json' } });
  assert.equal([patched.status, patched.text], [204, '']);
  assert.is((await call('/configs')).json.mode, 'global');
  // GLOBAL's choice is weir's global target (route.final `proxy` until one is picked).
  assert.equal((await call('/api/v1/runtime')).json.mode, { mode: 'global', global_target: 'proxy' });
  assert.is((await call('/proxies/GLOBAL')).json.now, 'proxy');

  assert.is((await call('/configs', { method: 'PATCH', body: '{"mode":"direct"}' })).status, 204);
  assert.is((await call('/configs')).json.mode, 'direct');
  assert.equal((await call('/api/v1/runtime')).json.mode, { mode: 'global', global_target: 'direct' });

  assert.is((await call('/configs', { method: 'PATCH', body: '{"mode":"rule","log-level":"warning"}' })).status, 204);
  const back = (await call('/configs')).json;
  assert.equal([back.mode, back['log-level']], ['rule', 'warning']);
  assert.is((await call('/configs', { method: 'PATCH', body: '{"log-level":"info"}' })).status, 204);

  const bad = await call('/configs', { method: 'PATCH', body: '{"mode":"sideways"}' });
  assert.equal([bad.status, bad.json], [400, { message: 'mode must be one of rule, global, direct' }]);
  assert.equal((await call('/configs', { method: 'PATCH', body: 'not json' })).json, { message: 'Body invalid' });
  assert.is((await call('/configs')).json.mode, 'rule');
});

test('GET /proxies: every outbound and group by name, groups with all and now, GLOBAL last over all of them', async () => {
  const { call } = await setup();
  const { proxies } = (await call('/proxies')).json;
  assert.equal(Object.keys(proxies), ['direct', 'block', 'proxy', 'auto', 'GLOBAL']);
  assert.equal(
    Object.values(proxies).map((p: any) => [p.name, p.type]),
    [['direct', 'Direct'], ['block', 'Reject'], ['proxy', 'Selector'], ['auto', 'URLTest'], ['GLOBAL', 'Selector']],
  );
  for (const p of Object.values(proxies) as any[]) {
    assert.ok(Array.isArray(p.history), `${p.name}: history is an array`);
    assert.type(p.alive, 'boolean');
  }
  assert.equal([proxies.proxy.all, proxies.proxy.now], [['direct', 'block'], 'direct']);
  assert.equal([proxies.auto.all, proxies.auto.now, proxies.auto.testUrl], [['direct'], 'direct', (await setup()).origin.url('/bytes/0')]);
  assert.equal(proxies.GLOBAL.all, ['direct', 'block', 'proxy', 'auto']);
  assert.is(proxies.direct.all, undefined);
  assert.equal((await call('/proxies/proxy')).json, proxies.proxy);
  assert.equal((await call('/proxies/nowhere')).json, { message: 'Resource not found' });
  assert.equal((await call('/providers/proxies')).json, { providers: {} });
});

test('PUT /proxies/{selector} selects as weir select does (policy.selected); mistakes get mihomo\'s words', async () => {
  const { call, events } = await setup();
  // metacubexd sends the body as text/plain.
  const put = await call('/proxies/proxy', { method: 'PUT', body: '{"name":"block"}', headers: { 'content-type': 'text/plain;charset=UTF-8' } });
  assert.equal([put.status, put.text], [204, '']);
  assert.is((await call('/proxies/proxy')).json.now, 'block');
  const selected = await waitForEvents(events, (es) => ofType(es, 'policy.selected').some((e) => e.payload['selected'] === 'block'));
  assert.equal(ofType(selected, 'policy.selected').at(-1)!.payload, { policy_tag: 'proxy', policy_kind: 'selector', selected: 'block', previous: 'direct' });
  assert.is((await call('/proxies/proxy', { method: 'PUT', body: '{"name":"direct"}' })).status, 204);

  const notMember = await call('/proxies/proxy', { method: 'PUT', body: '{"name":"auto"}' });
  assert.equal([notMember.status, notMember.json], [400, { message: 'Selector update error: "auto" is not a direct member of selector "proxy"' }]);
  assert.equal((await call('/proxies/auto', { method: 'PUT', body: '{"name":"direct"}' })).json, { message: 'Must be a Selector' });
  assert.is((await call('/proxies/nowhere', { method: 'PUT', body: '{"name":"direct"}' })).status, 404);
  assert.equal((await call('/proxies/proxy', { method: 'PUT', body: '{}' })).json, { message: 'Body invalid' });
  // Names come percent-encoded.
  assert.is((await call('/proxies/%70roxy')).json.name, 'proxy');
});

test('/proxies/{name}/delay probes through the outbound; /group/{url_test}/delay is a manual round with its event', async () => {
  const { call, events, origin } = await setup();
  const url = encodeURIComponent(origin.url('/bytes/0'));
  const delay = await call(`/proxies/direct/delay?url=${url}&timeout=5000`);
  assert.is(delay.status, 200);
  assert.equal(Object.keys(delay.json), ['delay']);
  assert.ok(Number.isInteger(delay.json.delay) && delay.json.delay >= 0);
  const history = (await call('/proxies/direct')).json.history;
  assert.ok(history.length >= 1);
  assert.equal(Object.keys(history.at(-1)), ['time', 'delay']);
  assert.is(new Date(history.at(-1).time).toISOString(), history.at(-1).time);

  const blocked = await call(`/proxies/block/delay?url=${url}&timeout=5000`);
  assert.equal([blocked.status, blocked.json], [503, { message: 'An error occurred in the delay test' }]);
  assert.equal((await call(`/proxies/direct/delay?url=${url}`)).json, { message: 'Body invalid' });
  assert.is((await call(`/proxies/direct/delay?url=${url}&timeout=40000`)).status, 400);

  const known = ofType(await waitForEvents(events, () => true), 'policy.probe.completed').length;
  const group = await call(`/group/auto/delay?url=${url}&timeout=5000`);
  assert.is(group.status, 200);
  assert.equal(Object.keys(group.json), ['direct']);
  const rounds = ofType(await waitForEvents(events, (es) => ofType(es, 'policy.probe.completed').length > known), 'policy.probe.completed');
  const manual = rounds.at(-1)!.payload;
  assert.equal([manual['policy_tag'], manual['trigger'], manual['selected']], ['auto', 'manual', 'direct']);

  const selectorGroup = await call(`/group/proxy/delay?url=${url}&timeout=5000`);
  assert.equal([selectorGroup.status, Object.keys(selectorGroup.json)], [200, ['direct']]);
  assert.is((await call(`/group/direct/delay?url=${url}&timeout=5000`)).status, 404);
});

test('GET /rules is the rules in order then Match for final; the rule providers are an empty map', async () => {
  const { call } = await setup();
  assert.equal((await call('/rules')).json, {
    rules: [
      { type: 'DomainSuffix', payload: 'blocked.test', proxy: 'block', size: -1, index: 0 },
      { type: 'Match', payload: '', proxy: 'proxy', size: -1, index: 1 },
    ],
  });
  assert.equal((await call('/providers/rules')).json, { providers: {} });
});

test('a Clash path that does not exist is a 404 {message}; a WebSocket without the right token is refused', async () => {
  const { call, controlPort } = await setup();
  assert.equal((await call('/proxies/proxy/nothing')).json, { message: 'Resource not found' });
  for (const query of ['?token=wrong', '', `?token=${CLASH_KEY}x`]) {
    const refused = new WsClient(`ws://127.0.0.1:${controlPort}/traffic${query}`);
    await waitFor(() => refused.unexpected, WAIT_MS, 'the refusal');
    assert.is(refused.unexpected, 401, query);
  }
});

test.run();
