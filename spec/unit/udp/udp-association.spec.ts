import dgram from 'node:dgram';
import { once } from 'node:events';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeUdpHeader } from '../../../actors/socks5/socks5-wire.js';
import { associate } from '../../support/socks5-udp-client.js';
import { startUdpEcho } from './udp-echo.js';
import { udpHarness } from './udp-harness.js';

const LOCAL = { host: '127.0.0.1', port: 0 };

test('relays direct as one udp flow with exact packet, byte and boundary counters', async () => {
  const h = await udpHarness();
  const echo = await startUdpEcho({ answer: (d) => Buffer.concat([d, d]) });
  const a = await associate({ ...LOCAL, port: h.port });
  assert.equal(a.relay.host, '127.0.0.1');
  const target = { host: '127.0.0.1', port: echo.port };
  a.send(target, Buffer.from('hello'));
  assert.equal(await a.receive(), { source: target, data: Buffer.from('hellohello') });
  a.send(target, Buffer.from('abc'));
  assert.equal((await a.receive()).data, Buffer.from('abcabc'));
  await a.close();
  const r = await h.nthCompleted(1);
  assert.is(r.network, 'udp');
  assert.equal(r.target, { host: '127.0.0.1', port: echo.port, resolved_ip: '127.0.0.1' });
  assert.equal(r.path, { outbound: { tag: 'direct', protocol: 'direct' }, remote: target, relay_chain: [] });
  assert.equal(r.route.selection_chain, ['direct']);
  const header = encodeUdpHeader(target).length;
  const control = { rx: 3 + 10, tx: 2 + 10 };
  assert.equal(r.traffic, {
    bytes_up: 8,
    bytes_down: 16,
    inbound_rx_bytes: control.rx + 2 * header + 8,
    inbound_tx_bytes: control.tx + 2 * header + 16,
    outbound_rx_bytes: 16,
    outbound_tx_bytes: 8,
    packets_up: 2,
    packets_down: 2,
  });
  assert.equal(r.result, { outcome: 'direct_relayed', close_reason: null, failure: null });
  assert.equal(h.completed.length, 1);
  assert.equal(
    { ...h.stats },
    {
      active_associations: 0,
      created_associations: 1,
      reused_associations: 0,
      closed_associations: 1,
      idle_timeouts: 0,
      dropped_associations: 0,
      failed_association_attempts: 0,
      send_failures: 0,
      recv_failures: 0,
      packets_sent: 2,
      packets_received: 2,
    },
  );
  await echo.close();
  await h.close();
});

test('carries a second destination on the same flow and counts it as a reused association', async () => {
  const h = await udpHarness();
  const [one, two] = await Promise.all([startUdpEcho(), startUdpEcho()]);
  const a = await associate({ ...LOCAL, port: h.port });
  const first = { host: '127.0.0.1', port: one.port };
  const second = { host: '127.0.0.1', port: two.port };
  a.send(first, Buffer.from('1'));
  assert.equal(await a.receive(), { source: first, data: Buffer.from('1') });
  assert.is(h.stats.active_associations, 1);
  a.send(second, Buffer.from('2'));
  assert.equal(await a.receive(), { source: second, data: Buffer.from('2') });
  a.send(second, Buffer.from('3'));
  assert.equal(await a.receive(), { source: second, data: Buffer.from('3') });
  await a.close();
  const r = await h.nthCompleted(1);
  assert.equal(r.target, { host: '127.0.0.1', port: one.port, resolved_ip: '127.0.0.1' }, 'the first destination is the target');
  assert.is(r.traffic.packets_up, 3);
  assert.is(h.stats.reused_associations, 1);
  assert.is(h.stats.created_associations, 1);
  await Promise.all([one.close(), two.close(), h.close()]);
});

test('holds datagrams sent while the upstream opens and relays them in order', async () => {
  const h = await udpHarness();
  const echo = await startUdpEcho();
  const a = await associate({ ...LOCAL, port: h.port });
  const target = { host: '127.0.0.1', port: echo.port };
  for (const word of ['a', 'b', 'c']) a.send(target, Buffer.from(word));
  const got = [await a.receive(), await a.receive(), await a.receive()].map((r) => r.data.toString());
  assert.equal(got, ['a', 'b', 'c']);
  await a.close();
  assert.is((await h.nthCompleted(1)).traffic.packets_up, 3);
  await echo.close();
  await h.close();
});

test('drops fragments, malformed datagrams and datagrams from another port of the client', async () => {
  const h = await udpHarness();
  const echo = await startUdpEcho();
  const a = await associate({ ...LOCAL, port: h.port });
  const target = { host: '127.0.0.1', port: echo.port };
  a.send(target, Buffer.from('first'));
  assert.equal(await a.receive(), { source: target, data: Buffer.from('first') });
  a.send(target, Buffer.from('fragment'), 1);
  a.sendRaw(Buffer.from([0, 0, 0, 9, 1, 2]));
  const stranger = dgram.createSocket('udp4');
  stranger.bind(0, '127.0.0.1');
  await once(stranger, 'listening');
  stranger.send(Buffer.concat([encodeUdpHeader(target), Buffer.from('stranger')]), a.relay.port, a.relay.host);
  assert.ok(await a.silentFor(150), 'nothing comes back for dropped datagrams');
  assert.equal(echo.sources.length, 1, 'only the first datagram reached the destination');
  await a.close();
  stranger.close();
  const r = await h.nthCompleted(1);
  assert.is(r.traffic.packets_up, 1);
  assert.is(r.traffic.bytes_up, 5);
  await echo.close();
  await h.close();
});

test('takes the client port from the request when it names one', async () => {
  const h = await udpHarness();
  const echo = await startUdpEcho();
  const pinned = dgram.createSocket('udp4');
  pinned.bind(0, '127.0.0.1');
  await once(pinned, 'listening');
  const a = await associate({ ...LOCAL, port: h.port }, { from: { host: '127.0.0.1', port: pinned.address().port } });
  // The client's own socket is not the one it named: its datagrams are not the client's.
  a.send({ host: '127.0.0.1', port: echo.port }, Buffer.from('x'));
  assert.ok(await a.silentFor(150));
  assert.is(echo.sources.length, 0);
  await a.close();
  pinned.close();
  await echo.close();
  await h.close();
});

test.run();
