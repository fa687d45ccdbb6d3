import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { associate } from '../../support/socks5-udp-client.js';
import { startUdpEcho, type UdpEcho } from './udp-echo.js';
import { controlEnded, udpHarness } from './udp-harness.js';

const LOCAL = { host: '127.0.0.1', port: 0 };
/** Rules an operator writes to keep clients off this host: a send to 0.0.0.0 or :: would pass them. */
const NO_LOOPBACK = [{ ip_cidr: ['127.0.0.0/8', '::1/128'], outbound: 'block' }];

/** Destinations that name no remote, each beside a loopback echo it would otherwise reach. */
function undeliverable(four: UdpEcho, six: UdpEcho) {
  return [
    { host: '0.0.0.0', port: four.port },
    { host: '::', port: six.port },
    { host: '::ffff:0.0.0.0', port: four.port },
    // dgram throws on port 0 instead of reporting: it took the node down. (TEST-NET-1: no rule blocks it.)
    { host: '192.0.2.1', port: 0 },
  ];
}

test('fails the flow TARGET_INVALID when the first destination is the unspecified address or port 0, sending nothing', async () => {
  const [four, six] = await Promise.all([startUdpEcho(), startUdpEcho({ host: '::1' })]);
  const h = await udpHarness({ rules: NO_LOOPBACK });
  for (const [i, target] of undeliverable(four, six).entries()) {
    const a = await associate({ ...LOCAL, port: h.port });
    a.send(target, Buffer.from('here?'));
    await controlEnded(a);
    const r = await h.nthCompleted(i + 1);
    assert.equal({ host: r.target.host, port: r.target.port }, target);
    assert.equal(r.result, {
      outcome: 'failed',
      close_reason: 'upstream_error',
      failure: { stage: 'connect', code: 'TARGET_INVALID', message: r.result?.failure?.message ?? '', remote: target },
    }, `${target.host}:${target.port}`);
    await a.close();
  }
  assert.equal([four.sources, six.sources], [[], []], 'nothing reached this host');
  assert.is(h.completed.length, 4, 'each flow completed once');
  assert.equal([h.stats.failed_association_attempts, h.stats.created_associations], [4, 0]);
  await Promise.all([four.close(), six.close(), h.close()]);
});

test('drops later datagrams to the unspecified address or port 0 as send failures; the flow goes on', async () => {
  const [echo, four, six] = await Promise.all([startUdpEcho(), startUdpEcho(), startUdpEcho({ host: '::1' })]);
  const h = await udpHarness();
  const a = await associate({ ...LOCAL, port: h.port });
  const target = { host: '127.0.0.1', port: echo.port };
  a.send(target, Buffer.from('first'));
  assert.equal(await a.receive(), { source: target, data: Buffer.from('first') });
  for (const lost of undeliverable(four, six)) a.send(lost, Buffer.from('lost'));
  a.send(target, Buffer.from('last'));
  assert.equal(await a.receive(), { source: target, data: Buffer.from('last') }, 'the association still relays');
  await a.close();
  const r = await h.nthCompleted(1);
  assert.equal(r.result, { outcome: 'direct_relayed', close_reason: null, failure: null });
  assert.equal([r.traffic.packets_up, r.traffic.bytes_up, r.traffic.outbound_tx_bytes], [2, 9, 9], 'the lost datagrams count as not sent');
  assert.equal([four.sources, six.sources, echo.sources.length], [[], [], 2]);
  assert.equal([h.stats.send_failures, h.stats.packets_sent, h.stats.reused_associations], [4, 2, 0]);
  assert.is(h.completed.length, 1);
  await Promise.all([echo.close(), four.close(), six.close(), h.close()]);
});

test.run();
