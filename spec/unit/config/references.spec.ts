import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../../actors/config/load-config.js';
import { formatProblem } from '../../../actors/config/problems.js';
import { designExample, EXAMPLE_ENV } from './fixtures.js';

function lines(raw: unknown): string[] {
  const result = parseConfig(raw, { env: EXAMPLE_ENV });
  return result.ok ? [] : result.problems.map(formatProblem);
}

test('reports an unknown member tag at its JSON path', () => {
  const raw = designExample();
  raw.outbounds[6].members = ['hop-a', 'hop-c'];
  assert.equal(lines(raw), ['outbounds[6].members[1]: unknown tag "hop-c"']);
});

test('reports unknown tags in chains, rules, final and global_target', () => {
  const raw = designExample();
  raw.outbounds[4].hops = ['hop-x', 'hop-b'];
  raw.route.rules[0].outbound = 'blocker';
  raw.route.rules[0].inbound = ['mixed-in', 'socks-in'];
  raw.route.final = 'nowhere';
  raw.route.global_target = 'elsewhere';
  assert.equal(lines(raw), [
    'outbounds[4].hops[0]: unknown tag "hop-x"',
    'route.rules[0].outbound: unknown tag "blocker"',
    'route.final: unknown tag "nowhere"',
    'route.global_target: unknown tag "elsewhere"',
    'route.rules[0].inbound[1]: unknown inbound tag "socks-in"',
  ]);
});

test('reports duplicate tags among inbounds, outbounds and sinks', () => {
  const raw = designExample();
  raw.inbounds.push({ type: 'socks', tag: 'mixed-in', port: 1081 });
  raw.outbounds.push({ type: 'block', tag: 'hop-a' });
  raw.event_sinks.push({ type: 'jsonl', tag: 'archive', path: 'other.jsonl' });
  assert.equal(lines(raw), [
    'inbounds[1].tag: duplicate tag "mixed-in" (first used at inbounds[0])',
    'outbounds[7].tag: duplicate tag "hop-a" (first used at outbounds[2])',
    'event_sinks[2].tag: duplicate tag "archive" (first used at event_sinks[0])',
  ]);
});

test('allows the same tag for an inbound and an outbound', () => {
  const raw = designExample();
  raw.inbounds[0].tag = 'direct';
  assert.equal(lines(raw), []);
});

test('rejects a chain hop that is not a socks or http outbound', () => {
  const raw = designExample();
  raw.outbounds[4].hops = ['hop-a', 'direct'];
  assert.equal(lines(raw), [
    'outbounds[4].hops[1]: "direct" is a direct outbound; chain hops must be socks or http outbounds',
  ]);
});

test('reports a cycle between groups from its first group', () => {
  const raw = designExample();
  raw.outbounds[6].members = ['hop-a', 'proxy'];
  assert.equal(lines(raw), ['outbounds[5].members[0]: reference cycle "proxy" -> "auto" -> "proxy"']);
});

test('reports a group that contains itself', () => {
  const raw = designExample();
  raw.outbounds[5].members = ['proxy', 'direct'];
  raw.outbounds[5].default = 'direct';
  assert.equal(lines(raw), ['outbounds[5].members[0]: reference cycle "proxy" -> "proxy"']);
});

test('reports a three-group cycle once', () => {
  const raw = designExample();
  raw.outbounds.push(
    { type: 'selector', tag: 'g1', members: ['g2'] },
    { type: 'selector', tag: 'g2', members: ['direct', 'g3'] },
    { type: 'url_test', tag: 'g3', members: ['g1'], url: 'https://example.com/' },
  );
  assert.equal(lines(raw), ['outbounds[7].members[0]: reference cycle "g1" -> "g2" -> "g3" -> "g1"']);
});

test('rejects a selector default that is not a member', () => {
  const raw = designExample();
  raw.outbounds[5].default = 'hop-b';
  assert.equal(lines(raw), ['outbounds[5].default: must be one of the members']);
});

test('rejects duplicate members and duplicate usernames', () => {
  const raw = designExample();
  raw.outbounds[6].members = ['hop-a', 'hop-b', 'hop-a'];
  raw.inbounds[0].users.push({ username: 'alice', password: 'other' });
  assert.equal(lines(raw), [
    'inbounds[0].users[1].username: duplicate username "alice"',
    'outbounds[6].members[2]: duplicate member "hop-a"',
  ]);
});

test("refuses an upstream proxy that is the node's own inbound: flows would loop back into it", () => {
  const raw = designExample();
  raw.outbounds[2] = { type: 'socks', tag: 'hop-a', server: 'localhost', port: 7890 };
  raw.outbounds[3] = { type: 'http', tag: 'hop-b', server: '127.0.0.1', port: 7890 };
  assert.equal(lines(raw), [
    'outbounds[2].server: localhost:7890 is this node\'s own inbound "mixed-in": flows sent there would loop back into the node',
    'outbounds[3].server: 127.0.0.1:7890 is this node\'s own inbound "mixed-in": flows sent there would loop back into the node',
  ]);
  // Another port, or another host's address, is another proxy.
  raw.outbounds[2].port = 7891;
  raw.outbounds[3].server = '10.0.0.7';
  assert.equal(lines(raw), []);
});

test('refuses listeners that would take the same port: the same address, or one on all addresses', () => {
  const raw = designExample();
  raw.inbounds.push({ type: 'socks', tag: 'socks-in', listen: '0.0.0.0', port: 7890 });
  raw.control.listen = '127.0.0.1:7890';
  assert.equal(lines(raw), [
    'inbounds[1].port: port 7890 is taken by inbound "mixed-in" (127.0.0.1:7890)',
    'control.listen: port 7890 is taken by inbound "mixed-in" (127.0.0.1:7890)',
  ]);
  // Another address on the same port is another socket; port 0 picks a free one.
  raw.inbounds[1].listen = '127.0.0.2';
  raw.control.listen = '127.0.0.1:0';
  assert.equal(lines(raw), []);
});

test('refuses a metrics listener on the control plane\'s port or an inbound\'s', () => {
  const raw = designExample();
  raw.control.listen = '127.0.0.1:9464';
  raw.control.metrics_listen = '0.0.0.0:9464';
  assert.equal(lines(raw), ['control.metrics_listen: port 9464 is taken by the control plane (127.0.0.1:9464)']);
  raw.control.metrics_listen = '127.0.0.1:7890';
  assert.equal(lines(raw), ['control.metrics_listen: port 7890 is taken by inbound "mixed-in" (127.0.0.1:7890)']);
  raw.control.metrics_listen = '127.0.0.1:9465';
  assert.equal(lines(raw), []);
});

test.run();
