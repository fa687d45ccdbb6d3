import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort } from '../../support/free-port.js';
import { associate, Socks5ReplyError } from '../../support/socks5-udp-client.js';
import { fakeUdpHop } from './fake-udp-hop.js';
import { startUdpEcho } from './udp-echo.js';
import { controlEnded, DIRECT_AND_BLOCK, udpHarness } from './udp-harness.js';

const LOCAL = { host: '127.0.0.1', port: 0 };

test('refuses the command with REP 2 when the rules block UDP, as a blocked flow', async () => {
  const h = await udpHarness({ rules: [{ network: ['udp'], outbound: 'block' }] });
  try {
    await associate({ ...LOCAL, port: h.port });
    assert.unreachable('the association should be refused');
  } catch (err) {
    assert.instance(err, Socks5ReplyError);
    assert.is((err as Socks5ReplyError).rep, 2);
  }
  const r = await h.nthCompleted(1);
  assert.is(r.network, 'udp');
  assert.equal(r.target, { host: '0.0.0.0', port: 0 });
  assert.equal(r.route.matched_rule, { index: 0, condition: 'network=udp' });
  assert.equal(r.result, { outcome: 'blocked', close_reason: null, failure: null });
  assert.is(h.stats.created_associations, 0);
  await h.close();
});

test('ends the association when the first destination is blocked', async () => {
  const echo = await startUdpEcho();
  const h = await udpHarness({ rules: [{ port: [echo.port], outbound: 'block' }] });
  const a = await associate({ ...LOCAL, port: h.port });
  a.send({ host: '127.0.0.1', port: echo.port }, Buffer.from('no'));
  await controlEnded(a);
  const r = await h.nthCompleted(1);
  assert.equal(r.target, { host: '127.0.0.1', port: echo.port });
  assert.equal(r.result, { outcome: 'blocked', close_reason: null, failure: null });
  assert.equal(r.route.matched_rule, { index: 0, condition: `port=${echo.port}` });
  assert.is(echo.sources.length, 0);
  assert.is(h.stats.created_associations + h.stats.closed_associations, 0);
  await a.close();
  await echo.close();
  await h.close();
});

test('fails with UDP_UNSUPPORTED on an outbound that cannot carry datagrams', async () => {
  const h = await udpHarness({
    outbounds: [...DIRECT_AND_BLOCK, { type: 'http', tag: 'web', server: '127.0.0.1', port: 3128 }],
    final: 'web',
  });
  const a = await associate({ ...LOCAL, port: h.port });
  a.send({ host: '127.0.0.1', port: 9 }, Buffer.from('x'));
  await controlEnded(a);
  const r = await h.nthCompleted(1);
  assert.is(r.result?.outcome, 'failed');
  assert.is(r.result?.close_reason, 'upstream_error');
  assert.is(r.result?.failure?.code, 'UDP_UNSUPPORTED');
  assert.is(r.result?.failure?.stage, 'connect');
  assert.is(h.stats.failed_association_attempts, 1);
  await a.close();
  await h.close();
});

test('a hop that refuses the association is reported with the route, as a TCP dial is (url_test groups re-probe)', async () => {
  const reported: [readonly string[], string][] = [];
  const h = await udpHarness({
    outbounds: [...DIRECT_AND_BLOCK, { type: 'socks', tag: 'hop', server: '127.0.0.1', port: await freePort() }],
    final: 'hop',
    dialFailed: (chain, failure) => reported.push([chain, failure.code]),
  });
  const a = await associate({ ...LOCAL, port: h.port });
  try {
    a.send({ host: '127.0.0.1', port: 9 }, Buffer.from('x'));
    await controlEnded(a);
    const r = await h.nthCompleted(1);
    assert.is(r.result?.failure?.code, 'HOP_REFUSED');
    assert.equal(reported, [[['hop'], 'HOP_REFUSED']]);
  } finally {
    await a.close();
    await h.close();
  }
});

test('closes an idle association with idle_timeout', async () => {
  const h = await udpHarness({ idleTimeoutMs: 1000 });
  const echo = await startUdpEcho();
  const a = await associate({ ...LOCAL, port: h.port });
  const target = { host: '127.0.0.1', port: echo.port };
  a.send(target, Buffer.from('once'));
  assert.equal(await a.receive(), { source: target, data: Buffer.from('once') });
  h.table.poll(Date.now());
  h.table.poll(Date.now() + 1000);
  await controlEnded(a);
  const r = await h.nthCompleted(1);
  assert.equal(r.result, { outcome: 'direct_relayed', close_reason: 'idle_timeout', failure: null });
  assert.equal([h.stats.idle_timeouts, h.stats.closed_associations, h.stats.active_associations], [1, 1, 0]);
  await a.close();
  await echo.close();
  await h.close();
});

test('ends an association that never sends a datagram after the idle timeout, with no flow', async () => {
  const h = await udpHarness({ idleTimeoutMs: 100 });
  const a = await associate({ ...LOCAL, port: h.port });
  await controlEnded(a);
  assert.equal(h.completed, []);
  await a.close();
  await h.close();
});

test('flows.close cancels the association: manual, counted as dropped', async () => {
  const h = await udpHarness();
  const echo = await startUdpEcho();
  const a = await associate({ ...LOCAL, port: h.port });
  const target = { host: '127.0.0.1', port: echo.port };
  a.send(target, Buffer.from('x'));
  assert.equal(await a.receive(), { source: target, data: Buffer.from('x') });
  const [record] = h.table.activeRecords();
  assert.ok(h.table.close(record!.flow_id, 'manual'));
  await controlEnded(a);
  const r = await h.nthCompleted(1);
  assert.equal(r.result, { outcome: 'cancelled', close_reason: 'manual', failure: null });
  assert.is(h.stats.dropped_associations, 1);
  await a.close();
  await echo.close();
  await h.close();
});

test('relays through a SOCKS5 hop: chained_relayed, relay chain, hop bytes only in the boundary counters', async () => {
  const fake = await fakeUdpHop();
  const h = await udpHarness({ outbounds: [...DIRECT_AND_BLOCK, { type: 'socks', tag: 'hop', server: '127.0.0.1', port: fake.port }], final: 'hop' });
  const a = await associate({ ...LOCAL, port: h.port });
  const target = { host: '10.9.8.7', port: 4000 };
  a.send(target, Buffer.from('via hop'));
  assert.equal(await a.receive(), { source: target, data: Buffer.from('via hop') });
  await a.close();
  const r = await h.nthCompleted(1);
  assert.equal(r.path, {
    outbound: { tag: 'hop', protocol: 'socks' },
    remote: target,
    relay_chain: [{ tag: 'hop', protocol: 'socks', server: '127.0.0.1', port: fake.port }],
  });
  assert.equal(r.result, { outcome: 'chained_relayed', close_reason: null, failure: null });
  const framed = 10 + 7;
  // hop control: greeting 3 + request 10 written, method 2 + reply 10 read.
  assert.equal(r.traffic, {
    bytes_up: 7,
    bytes_down: 7,
    inbound_rx_bytes: 13 + framed,
    inbound_tx_bytes: 12 + framed,
    outbound_rx_bytes: 12 + framed,
    outbound_tx_bytes: 13 + framed,
    packets_up: 1,
    packets_down: 1,
  });
  await fake.close();
  await h.close();
});

test('fails the flow with upstream_error when the hop drops the association', async () => {
  const fake = await fakeUdpHop();
  const h = await udpHarness({ outbounds: [...DIRECT_AND_BLOCK, { type: 'socks', tag: 'hop', server: '127.0.0.1', port: fake.port }], final: 'hop' });
  const a = await associate({ ...LOCAL, port: h.port });
  const target = { host: '10.9.8.7', port: 4000 };
  a.send(target, Buffer.from('x'));
  assert.equal(await a.receive(), { source: target, data: Buffer.from('x') });
  fake.dropAssociations();
  await controlEnded(a);
  const r = await h.nthCompleted(1);
  assert.is(r.result?.outcome, 'failed');
  assert.is(r.result?.failure?.code, 'UPSTREAM_RESET');
  assert.equal(r.result?.failure?.remote, { host: '127.0.0.1', port: fake.port });
  assert.equal([h.stats.dropped_associations, h.stats.closed_associations], [1, 1]);
  await a.close();
  await fake.close();
  await h.close();
});

test.run();
