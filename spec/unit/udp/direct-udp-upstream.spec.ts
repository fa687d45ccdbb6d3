import { lookup } from 'node:dns/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FlowFailureError, TargetRefusedError } from '../../../actors/errors/flow-failure.js';
import { encodeUdpHeader } from '../../../actors/socks5/socks5-wire.js';
import { DirectUdpUpstream } from '../../../actors/udp/direct-udp-upstream.js';
import { waitFor } from '../../support/wait-for.js';
import { startUdpEcho } from './udp-echo.js';
import { UpstreamRecorder } from './upstream-recorder.js';

test('sends the payload alone to an IP destination and frames the answer with its source', async () => {
  const echo = await startUdpEcho({ answer: (data) => Buffer.concat([data, data]) });
  const events = new UpstreamRecorder();
  const target = { host: '127.0.0.1', port: echo.port };
  const upstream = await DirectUdpUpstream.open(target, events);
  assert.is(upstream.resolved_ip, '127.0.0.1');
  assert.equal(upstream.relay_chain, []);
  assert.is(upstream.control, null);
  upstream.send(target, Buffer.from('ping'));
  const reply = await events.nthReply(1);
  assert.equal(events.sends, [{ payloadBytes: 4, wireBytes: 4 }]);
  assert.equal(reply.framed, Buffer.concat([encodeUdpHeader(target), Buffer.from('pingping')]));
  assert.is(reply.payloadBytes, 8);
  assert.is(reply.wireBytes, 8);
  upstream.close();
  await echo.close();
});

test('resolves a host name and sends to the address it resolved to', async () => {
  const { address } = await lookup('localhost');
  const echo = await startUdpEcho({ host: address });
  const events = new UpstreamRecorder();
  const named = { host: 'localhost', port: echo.port };
  const upstream = await DirectUdpUpstream.open(named, events);
  assert.is(upstream.resolved_ip, address);
  upstream.send(named, Buffer.from('a'));
  upstream.send(named, Buffer.from('b'));
  await events.nthReply(2);
  // Replies name their real source, the address, not the name the client used.
  assert.equal(events.replies[0]!.framed, Buffer.concat([encodeUdpHeader({ host: address, port: echo.port }), Buffer.from('a')]));
  assert.is(echo.sources.length, 2);
  upstream.close();
  await echo.close();
});

test('fails the opening with DNS_FAILED when the first destination does not resolve', async () => {
  const events = new UpstreamRecorder();
  try {
    await DirectUdpUpstream.open({ host: 'no-such-host.invalid', port: 53 }, events);
    assert.unreachable('open should fail');
  } catch (err) {
    assert.instance(err, FlowFailureError);
    assert.is((err as FlowFailureError).code, 'DNS_FAILED');
    assert.equal((err as FlowFailureError).remote, { host: 'no-such-host.invalid', port: 53 });
  }
});

test('reports a later destination that does not resolve as a send failure, not as sent, and keeps relaying', async () => {
  const echo = await startUdpEcho();
  const events = new UpstreamRecorder();
  const target = { host: '127.0.0.1', port: echo.port };
  const upstream = await DirectUdpUpstream.open(target, events);
  upstream.send({ host: 'no-such-host.invalid', port: 53 }, Buffer.from('lost'));
  await waitFor(() => events.sendFailures.length === 1, 3000, 'a send failure');
  assert.equal(events.sends, [], 'the lost datagram is not counted as sent');
  upstream.send(target, Buffer.from('kept'));
  assert.equal((await events.nthReply(1)).framed.subarray(-4), Buffer.from('kept'));
  assert.equal(events.sends, [{ payloadBytes: 4, wireBytes: 4 }]);
  assert.equal(events.breaks, []);
  upstream.close();
  await echo.close();
});

test('never sends to a name whose only address is the unspecified one, which a send takes for this host', async () => {
  const echo = await startUdpEcho();
  const events = new UpstreamRecorder();
  // getaddrinfo reads "0" as 0.0.0.0 without asking DNS, as a sinkhole would answer.
  const sinkholed = { host: '0', port: echo.port };
  try {
    await DirectUdpUpstream.open(sinkholed, events);
    assert.unreachable('open should fail');
  } catch (err) {
    assert.is((err as FlowFailureError).code, 'DNS_FAILED');
  }
  const target = { host: '127.0.0.1', port: echo.port };
  const upstream = await DirectUdpUpstream.open(target, events);
  upstream.send(sinkholed, Buffer.from('lost'));
  await waitFor(() => events.sendFailures.length === 1, 3000, 'a send failure');
  upstream.send(target, Buffer.from('kept'));
  await events.nthReply(1);
  assert.is(echo.sources.length, 1, 'only the datagram to 127.0.0.1 arrived');
  assert.equal(events.sends, [{ payloadBytes: 4, wireBytes: 4 }]);
  upstream.close();
  await echo.close();
});

/** A resolver that answers each name after `settle` tells it to, counting the lookups. */
function heldResolver() {
  const asked: string[] = [];
  const waiting: { resolve: (address: string) => void; reject: (err: Error) => void }[] = [];
  const resolve = (host: string): Promise<string> => {
    asked.push(host);
    return new Promise((res, rej) => waiting.push({ resolve: res, reject: rej }));
  };
  const settle = (answer: string | Error): void => {
    for (const w of waiting.splice(0)) {
      if (typeof answer === 'string') w.resolve(answer);
      else w.reject(answer);
    }
  };
  return { asked, resolve, settle };
}

/** An association opened on a loopback echo, whose later names go to a heldResolver. */
async function withHeldDns() {
  const echo = await startUdpEcho();
  const events = new UpstreamRecorder();
  const dns = heldResolver();
  const upstream = await DirectUdpUpstream.open({ host: '127.0.0.1', port: echo.port }, events, dns.resolve);
  return { echo, events, dns, upstream };
}

test('datagrams to a name being looked up wait for that lookup instead of each starting one, and go out in order', async () => {
  const { echo, events, dns, upstream } = await withHeldDns();
  const named = { host: 'echo.example', port: echo.port };
  for (const word of ['one', 'two', 'three']) upstream.send(named, Buffer.from(word));
  dns.settle('127.0.0.1');
  await events.nthReply(3);
  assert.equal(dns.asked, ['echo.example'], 'one lookup for the burst');
  assert.equal(events.replies.map((r) => r.framed.subarray(10).toString()), ['one', 'two', 'three']);
  upstream.send(named, Buffer.from('four'));
  await events.nthReply(4);
  assert.equal(dns.asked, ['echo.example'], 'the address is kept');
  upstream.close();
  await echo.close();
});

test('a burst to a name that does not resolve costs one lookup; the next datagram after the failure asks again', async () => {
  const { echo, events, dns, upstream } = await withHeldDns();
  const named = { host: 'gone.example', port: echo.port };
  for (let i = 0; i < 5; i++) upstream.send(named, Buffer.from('lost'));
  dns.settle(Object.assign(new Error('getaddrinfo ENOTFOUND gone.example'), { code: 'ENOTFOUND' }));
  await waitFor(() => events.sendFailures.length === 5, 3000, 'five send failures');
  assert.equal(dns.asked, ['gone.example']);
  upstream.send(named, Buffer.from('again'));
  dns.settle('127.0.0.1');
  await events.nthReply(1);
  assert.equal(dns.asked, ['gone.example', 'gone.example']);
  assert.is(echo.sources.length, 1);
  upstream.close();
  await echo.close();
});

test('reaches IPv4 and IPv6 destinations from one association', async () => {
  const events = new UpstreamRecorder();
  const four = await startUdpEcho();
  const six = await startUdpEcho({ host: '::1' });
  const upstream = await DirectUdpUpstream.open({ host: '127.0.0.1', port: four.port }, events);
  upstream.send({ host: '::1', port: six.port }, Buffer.from('six'));
  upstream.send({ host: '127.0.0.1', port: four.port }, Buffer.from('four'));
  await events.nthReply(2);
  const framed = events.replies.map((r) => r.framed.toString('hex')).sort();
  const expected = [
    Buffer.concat([encodeUdpHeader({ host: '::1', port: six.port }), Buffer.from('six')]),
    Buffer.concat([encodeUdpHeader({ host: '127.0.0.1', port: four.port }), Buffer.from('four')]),
  ].map((b) => b.toString('hex'));
  assert.equal(framed, expected.sort());
  upstream.close();
  await Promise.all([four.close(), six.close()]);
});

test('with refusePrivate, a private first destination refuses the opening: TargetRefusedError TARGET_PRIVATE', async () => {
  const echo = await startUdpEcho();
  for (const [first, resolve] of [
    [{ host: '127.0.0.1', port: echo.port }, undefined],
    [{ host: 'db.test', port: echo.port }, async () => '10.0.0.7'],
  ] as const) {
    try {
      await DirectUdpUpstream.open(first, new UpstreamRecorder(), resolve, true);
      assert.unreachable('open should be refused');
    } catch (err) {
      assert.instance(err, TargetRefusedError);
      assert.is((err as TargetRefusedError).code, 'TARGET_PRIVATE');
    }
  }
  assert.is(echo.sources.length, 0);
  await echo.close();
});

test('with refusePrivate, a later datagram to a private address is a send failure and is not sent', async () => {
  const echo = await startUdpEcho();
  const events = new UpstreamRecorder();
  // A public first destination: opening binds a socket and sends nothing to it.
  const upstream = await DirectUdpUpstream.open({ host: '192.0.43.10', port: 53 }, events, undefined, true);
  upstream.send({ host: '127.0.0.1', port: echo.port }, Buffer.from('lost'));
  upstream.send({ host: '127.0.0.1', port: echo.port }, Buffer.from('lost again'));
  assert.equal(
    events.sendFailures.map((e) => [(e as TargetRefusedError).code, e.message]),
    [
      ['TARGET_PRIVATE', '127.0.0.1 is a loopback address (route.block_private)'],
      ['TARGET_PRIVATE', '127.0.0.1 is a loopback address (route.block_private)'],
    ],
  );
  assert.equal(events.sends, []);
  assert.is(echo.sources.length, 0);
  upstream.close();
  await echo.close();
});

test.run();
