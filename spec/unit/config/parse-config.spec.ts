import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../../actors/config/load-config.js';
import { Secret } from '../../../actors/config/secret.js';
import { designExample, EXAMPLE_ENV, minimalConfig } from './fixtures.js';

const BASE = path.join(os.tmpdir(), 'weir-config-base');

test('accepts the DESIGN.md example and resolves its env secrets', () => {
  const result = parseConfig(designExample(), { baseDir: BASE, env: EXAMPLE_ENV });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  const { config } = result;
  assert.ok(config.control.api_key instanceof Secret);
  assert.is(config.control.api_key.reveal(), 'key-0123456789abcdef');
  assert.is(config.inbounds[0]?.users?.[0]?.password.reveal(), 'alice-pw');
  const billing = config.event_sinks[1];
  assert.is(billing?.type === 'webhook' ? billing.token.reveal() : undefined, 'bill-tok');
  assert.is(config.route.final, 'proxy');
  assert.equal(config.outbounds[5], {
    type: 'selector',
    tag: 'proxy',
    members: ['auto', 'hop-a', 'direct'],
    default: 'auto',
  });
});

test('resolves state_dir, log file, ipc and jsonl paths against baseDir', () => {
  const result = parseConfig(designExample(), { baseDir: BASE, env: EXAMPLE_ENV });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  assert.is(result.config.node.state_dir, path.join(BASE, 'state'));
  assert.is(result.config.log.file, path.join(BASE, 'state/weir.log'));
  assert.is(result.config.control.ipc, path.join(BASE, 'state/weir.sock'));
  assert.is(result.config.event_sinks[0]?.type === 'jsonl' ? result.config.event_sinks[0].path : '', path.join(BASE, 'state/events.jsonl'));
});

test('fills every default of a minimal config', () => {
  const result = parseConfig(minimalConfig(), { baseDir: BASE, env: {} });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  const { config } = result;
  assert.equal(config.node, { id: os.hostname(), state_dir: path.join(BASE, 'state'), replay_ring: { max_events: 65_536, max_bytes: 33_554_432 }, workers: 1 });
  assert.equal(config.log, { level: 'info', access: true });
  assert.is(config.control.listen, '127.0.0.1:9090');
  assert.is(config.control.ipc, path.join(BASE, 'state/weir.sock'));
  assert.is(config.control.health_requires_key, true);
  assert.is(config.control.max_body_bytes, 1_048_576);
  assert.is(config.redis, undefined);
  assert.equal(config.flows, { idle_timeout_s: 300, connect_timeout_ms: 10_000, handshake_timeout_ms: 10_000, history_size: 1000 });
  assert.equal(config.inbounds, []);
  assert.equal(config.route, { mode: 'rule', rules: [], final: 'direct', sniff: true, sniff_timeout_ms: 300, block_private: false, process_lookup: false });
  assert.equal(config.dns, { hosts: {} });
  assert.equal(config.event_sinks, []);
  assert.equal(config.outbox, { max_bytes: 1_073_741_824, min_free_bytes: 268_435_456 });
});

test('node.workers takes a count or "auto" (one per core) and refuses anything else at its path', () => {
  const workers = (value: unknown): ReturnType<typeof parseConfig> => parseConfig({ ...minimalConfig(), node: { workers: value } }, { baseDir: BASE, env: {} });
  const counts = [4, 'auto'].map((value) => {
    const result = workers(value);
    return result.ok ? result.config.node.workers : result.problems;
  });
  assert.equal(counts, [4, os.availableParallelism()]);
  for (const bad of [0, 1.5, 257, 'all', null]) {
    const result = workers(bad);
    assert.equal(result.ok ? [] : result.problems.map((p) => p.path), ['node.workers'], JSON.stringify(bad));
  }
});

test('fills the defaults of inbounds, url_test groups and sinks', () => {
  const raw = designExample();
  delete raw.inbounds[0].listen;
  const result = parseConfig(raw, { baseDir: BASE, env: EXAMPLE_ENV });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  const [archive, billing] = result.config.event_sinks;
  assert.is(result.config.inbounds[0]?.listen, '127.0.0.1');
  assert.equal(result.config.outbounds[6], { ...raw.outbounds[6], timeout_ms: 5000 }, 'the url_test group gets its default timeout_ms');
  assert.equal(archive?.type === 'jsonl' && [archive.max_bytes, archive.keep_files, archive.fsync_interval_ms], [67_108_864, 5, 1000]);
  assert.equal(
    billing?.type === 'webhook' && [billing.batch_size, billing.concurrency, billing.timeout_ms, billing.retry_for_s, billing.delivery],
    [100, 4, 10_000, 259_200, 'node'],
  );
});

test('refuses external delivery of a Webhook sink on a node without redis, at its path', () => {
  const raw = {
    control: { api_key: 'k-0123456789abcdef' },
    outbounds: [{ type: 'direct', tag: 'direct' }],
    event_sinks: [{ type: 'webhook', tag: 'billing', url: 'http://127.0.0.1:8080/in', token: 't', delivery: 'external' }],
  };
  const result = parseConfig(raw, { baseDir: '/tmp' });
  assert.equal(result.ok ? [] : result.problems, [
    { path: 'event_sinks[0].delivery', message: '"external" needs `redis`: `weir deliver` workers deliver from the node\'s Redis queues' },
  ]);
  const withRedis = parseConfig({ ...raw, redis: { url: 'redis://127.0.0.1:6379' } }, { baseDir: '/tmp' });
  assert.ok(withRedis.ok);
});

test('final defaults to the first outbound when there is no "direct"', () => {
  const raw = { control: { api_key: 'k-0123456789abcdef' }, outbounds: [{ type: 'block', tag: 'no' }, { type: 'direct', tag: 'out' }] };
  const result = parseConfig(raw, { env: {} });
  assert.is(result.ok && result.config.route.final, 'no');
});

test('returns a deep-frozen config', () => {
  const result = parseConfig(designExample(), { baseDir: BASE, env: EXAMPLE_ENV });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  const { config } = result;
  assert.ok(Object.isFrozen(config));
  assert.ok(Object.isFrozen(config.outbounds));
  assert.ok(Object.isFrozen(config.outbounds[5]));
  assert.ok(Object.isFrozen(config.route.rules[0]?.domain_suffix));
  assert.throws(() => {
    (config.route as { mode: string }).mode = 'global';
  }, TypeError);
});

test('accepts IPv6 listen addresses, CIDRs and port ranges', () => {
  const raw = minimalConfig();
  raw.control.listen = '[::1]:0';
  raw.inbounds = [{ type: 'socks', tag: 's', listen: '::1', port: 0 }];
  raw.route = { rules: [{ ip_cidr: ['fd00::/8', '192.168.1.1'], port: [443, '8000-8100'], outbound: 'direct' }] };
  const result = parseConfig(raw, { env: {} });
  assert.equal(result.ok ? [] : result.problems, []);
});

test('a sink whose events list is null takes every event, as one without a list', () => {
  const raw = designExample();
  raw.event_sinks[0].events = null;
  delete raw.event_sinks[1].events;
  const result = parseConfig(raw, { baseDir: BASE, env: EXAMPLE_ENV });
  assert.ok(result.ok, result.ok ? '' : result.problems.map((p) => p.message).join('; '));
  assert.equal(result.config.event_sinks.map((s) => s.events), [undefined, undefined]);
});

test('refuses a lone UTF-16 surrogate wherever the node names keys, files or headers by the string, and takes a whole pair', () => {
  const raw = designExample();
  raw.node.id = 'edge-\udc00';
  raw.node.state_dir = './st\ud800ate';
  raw.log.file = './weir\ud800.log';
  raw.control.ipc = './w\ud800.sock';
  raw.ipc_hook = { path: './hook\udbff.sock' };
  raw.inbounds[0].users[0].username = 'al\udfffice';
  raw.outbounds[2].username = '\ud800';
  raw.outbounds[2].password = 'pw';
  raw.outbounds[5].tag = 'pro\ud800xy';
  raw.route.final = 'pro\ud800xy';
  raw.event_sinks[1].tag = 'billing\ud83d';
  const result = parseConfig(raw, { baseDir: BASE, env: EXAMPLE_ENV });
  const refused = result.ok ? [] : result.problems.filter((p) => p.message.includes('lone UTF-16 surrogate')).map((p) => p.path);
  assert.equal(refused.sort(), [
    'control.ipc',
    'event_sinks[1].tag',
    'inbounds[0].users[0].username',
    'ipc_hook.path',
    'log.file',
    'node.id',
    'node.state_dir',
    'outbounds[2].username',
    'outbounds[5].tag',
    'route.final',
  ]);

  const paired = designExample();
  paired.node.id = 'edge-\ud83d\ude80';
  paired.event_sinks[1].tag = 'billing-\u{1F4B0}';
  const accepted = parseConfig(paired, { baseDir: BASE, env: EXAMPLE_ENV });
  assert.equal(accepted.ok ? [] : accepted.problems, []);
});

test('refuses an HTTP hop username with a colon at its path, and takes one in a SOCKS5 hop', () => {
  const hop = (type: string, username: string) => ({ type, tag: `${type}-hop`, server: '127.0.0.1', port: 3128, username, password: 'pw' });
  const refused = parseConfig({ ...minimalConfig(), outbounds: [{ type: 'direct', tag: 'direct' }, hop('http', 'ann:x')] }, { baseDir: BASE });
  assert.equal(refused.ok ? [] : refused.problems.map((p) => [p.path, p.message]), [
    ['outbounds[1].username', 'an HTTP proxy username cannot contain ":" (Basic auth splits user and password there)'],
  ]);
  const socks = parseConfig({ ...minimalConfig(), outbounds: [{ type: 'direct', tag: 'direct' }, hop('socks', 'ann:x')] }, { baseDir: BASE });
  assert.equal(socks.ok ? [] : socks.problems, []);
});

test.run();
