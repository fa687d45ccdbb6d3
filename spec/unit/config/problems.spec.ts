import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../../actors/config/load-config.js';
import { ConfigError, formatProblem } from '../../../actors/config/problems.js';
import { designExample, EXAMPLE_ENV, minimalConfig } from './fixtures.js';

function lines(raw: unknown, env: NodeJS.ProcessEnv = EXAMPLE_ENV): string[] {
  const result = parseConfig(raw, { env });
  return result.ok ? [] : result.problems.map(formatProblem);
}

test('reports an unknown outbound type with the allowed types', () => {
  const raw = designExample();
  raw.outbounds[2].type = 'vmess';
  assert.ok(
    lines(raw).includes(
      'outbounds[2].type: unknown outbound type "vmess" (allowed: direct, block, socks, http, chain, selector, url_test)',
    ),
  );
});

test('reports a missing inbound type and an unknown sink type', () => {
  const raw = designExample();
  delete raw.inbounds[0].type;
  raw.event_sinks[0].type = 'kafka';
  const found = lines(raw);
  assert.ok(found.includes('inbounds[0].type: missing inbound type (allowed: socks, http, mixed)'));
  assert.ok(found.includes('event_sinks[0].type: unknown sink type "kafka" (allowed: jsonl, webhook)'));
});

test('reports an unknown key at its own path with the allowed keys', () => {
  const raw = designExample();
  raw.inbounds[0].sniff = true;
  assert.equal(lines(raw), ['inbounds[0].sniff: unknown key (allowed: type, tag, listen, port, users)']);
});

test('reports an invalid CIDR', () => {
  const raw = designExample();
  raw.route.rules[1].ip_cidr = ['10.0.0.0/8', '10.0.0.0/33'];
  assert.equal(lines(raw), ['route.rules[1].ip_cidr[1]: must be an IP address or CIDR block']);
});

test('reports a missing environment variable without any secret value', () => {
  const result = parseConfig(designExample(), { env: { ALICE_PW: 'alice-pw', BILLING_TOKEN: 'bill-tok' } });
  assert.equal(result.ok ? [] : result.problems.map(formatProblem), [
    'control.api_key: environment variable WEIR_API_KEY is not set',
  ]);
});

test('rejects flow.snapshot in a sink filter and says why', () => {
  const raw = designExample();
  raw.event_sinks[0].events = ['flow.completed', 'flow.snapshot'];
  assert.equal(lines(raw), [
    'event_sinks[0].events[1]: "flow.snapshot" is never delivered to sinks (it is only the baseline of a live subscription)',
  ]);
});

test('rejects an unknown event type in a sink filter', () => {
  const raw = designExample();
  raw.event_sinks[1].events = ['flow.finished'];
  const [line] = lines(raw);
  assert.ok(line?.startsWith('event_sinks[1].events[0]: unknown event type "flow.finished" (allowed: *, engine.started,'));
});

test('requires global_target in global mode', () => {
  const raw = designExample();
  raw.route.mode = 'global';
  assert.equal(lines(raw), ['route.global_target: is required when mode is "global"']);
});

test('rejects a rule without a condition', () => {
  const raw = designExample();
  raw.route.rules.push({ outbound: 'direct' });
  assert.equal(lines(raw), [
    'route.rules[2]: rule has no condition (give at least one of domain, domain_suffix, domain_keyword, ip_cidr, port, network, inbound, principal)',
  ]);
});

test('reports bad listen addresses, ports, URLs and levels', () => {
  const raw = designExample();
  raw.control.listen = '127.0.0.1';
  raw.control.metrics_listen = 'metrics:9464:1';
  raw.inbounds[0].listen = 'localhost';
  raw.outbounds[2].port = 0;
  raw.outbounds[6].url = 'ftp://example.com/';
  raw.log.level = 'verbose';
  raw.redis.url = 'http://127.0.0.1:6379';
  raw.route.rules[0].port = ['90-80'];
  assert.equal(lines(raw), [
    'log.level: must be one of "trace", "debug", "info", "warn", "error", "fatal"',
    'control.listen: must be host:port (IPv6 as [addr]:port, port 0-65535)',
    'control.metrics_listen: must be host:port (IPv6 as [addr]:port, port 0-65535)',
    'redis.url: must be a redis:// or rediss:// URL',
    'inbounds[0].listen: must be an IP address',
    'outbounds[2].port: must be at least 1',
    'outbounds[6].url: must be an http:// or https:// URL',
    'route.rules[0].port[0]: must be a "low-high" port range with low <= high <= 65535',
  ]);
});

test('reports missing required fields and wrong types', () => {
  assert.equal(lines({}), ['control: is required', 'outbounds: is required']);
  assert.equal(lines([]), ['must be of type object, not array']);
  const raw = minimalConfig();
  raw.flows = { connect_timeout_ms: 1.5, idle_timeout_s: 0 };
  raw.control.health_requires_key = 'yes';
  assert.equal(lines(raw), [
    'control.health_requires_key: must be of type boolean, not string',
    'flows.idle_timeout_s: must be greater than 0',
    'flows.connect_timeout_ms: must be an integer',
  ]);
});

test('collects schema and reference problems of one document in one result', () => {
  const raw = designExample();
  raw.bogus = 1;
  raw.outbounds[5].members.push('hop-c');
  raw.outbounds.push({ type: 'direct', tag: 'block' });
  raw.route.rules[0].ip_cidr = ['300.0.0.0/8'];
  assert.equal(lines(raw, {}), [
    'control.api_key: environment variable WEIR_API_KEY is not set',
    'inbounds[0].users[0].password: environment variable ALICE_PW is not set',
    'route.rules[0].ip_cidr[0]: must be an IP address or CIDR block',
    'event_sinks[1].token: environment variable BILLING_TOKEN is not set',
    'bogus: unknown key (allowed: $schema, node, log, control, redis, flows, inbounds, outbounds, route, dns, ipc_hook, event_sinks, outbox)',
    'outbounds[7].tag: duplicate tag "block" (first used at outbounds[1])',
    'outbounds[5].members[3]: unknown tag "hop-c"',
  ]);
});

test('ConfigError lists every problem, one per line, with a stable code', () => {
  const err = new ConfigError([
    { path: 'outbounds[3].members[1]', message: 'unknown tag "hop-c"' },
    { path: '', message: 'cannot read config file /x.json (ENOENT)' },
  ]);
  assert.ok(err instanceof Error);
  assert.is(err.code, 'CONFIG_INVALID');
  assert.is(err.message, 'outbounds[3].members[1]: unknown tag "hop-c"\ncannot read config file /x.json (ENOENT)');
  assert.is(err.problems.length, 2);
});

test('refuses a Webhook URL with a user or password, without showing it', () => {
  const raw = designExample();
  const webhook = raw.event_sinks.findIndex((s: { type: string }) => s.type === 'webhook');
  raw.event_sinks[webhook].url = 'https://billing:pw-9f3e@controller.example/ingest';
  assert.equal(lines(raw), [`event_sinks[${webhook}].url: must not carry a user name or password: the sink's token authenticates it`]);
});

test('refuses a Webhook URL on a port fetch() never connects to; a scheme’s default port or another one is taken', () => {
  const raw = designExample();
  const webhook = raw.event_sinks.findIndex((s: { type: string }) => s.type === 'webhook');
  raw.event_sinks[webhook].url = 'http://127.0.0.1:10080/ingest';
  assert.equal(lines(raw), [`event_sinks[${webhook}].url: is on a port HTTP clients refuse to connect to (the Fetch standard’s bad ports, e.g. 10080, 6665-6669); use another port`]);
  for (const url of ['https://controller.example/ingest', 'http://127.0.0.1:10081/ingest']) {
    raw.event_sinks[webhook].url = url;
    assert.equal(lines(raw), [], url);
  }
});

test('a timeout or interval longer than a timer can wait is refused, not run as 1 ms', () => {
  const raw = designExample();
  raw.route.sniff_timeout_ms = 3_000_000_000;
  raw.ipc_hook = { path: '/run/hook.sock', timeout_ms: 2 ** 31 };
  assert.equal(lines(raw), ['route.sniff_timeout_ms: must be at most 2147483647', 'ipc_hook.timeout_ms: must be at most 2147483647']);
});

test('a replay ring the node could not allocate, or one with no room, is refused', () => {
  const raw = designExample();
  raw.node.replay_ring = { max_events: 0, max_bytes: 2 ** 32 };
  assert.equal(lines(raw), ['node.replay_ring.max_events: must be at least 1', 'node.replay_ring.max_bytes: must be at most 4294967295']);
  raw.node.replay_ring = { max_events: 16_777_217, max_bytes: 1024 };
  assert.equal(lines(raw), ['node.replay_ring.max_events: must be at most 16777216', 'node.replay_ring.max_bytes: must be at least 65536']);
});

test.run();
