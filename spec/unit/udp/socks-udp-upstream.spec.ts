import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FlowFailureError } from '../../../actors/errors/flow-failure.js';
import { encodeUdpHeader } from '../../../actors/socks5/socks5-wire.js';
import type { Hop } from '../../../actors/outbounds/hop.js';
import { SocksUdpUpstream } from '../../../actors/udp/socks-udp-upstream.js';
import { freePort } from '../../support/free-port.js';
import { waitFor } from '../../support/wait-for.js';
import { fakeUdpHop } from './fake-udp-hop.js';
import { UpstreamRecorder } from './upstream-recorder.js';

function hop(port: number): Hop {
  return { tag: 'hop-u', protocol: 'socks', server: '127.0.0.1', port };
}

async function failureOf(promise: Promise<SocksUdpUpstream>): Promise<FlowFailureError> {
  try {
    (await promise).close();
  } catch (err) {
    assert.instance(err, FlowFailureError);
    return err as FlowFailureError;
  }
  throw new Error('expected the association to fail');
}

test('asks the hop for UDP ASSOCIATE with DST 0.0.0.0:0 and sends framed datagrams to its relay', async () => {
  const fake = await fakeUdpHop();
  const events = new UpstreamRecorder();
  const upstream = await SocksUdpUpstream.open(hop(fake.port), 2000, events);
  assert.equal(fake.requests, ['3 0.0.0.0:0']);
  assert.equal(upstream.relay_chain, [{ tag: 'hop-u', protocol: 'socks', server: '127.0.0.1', port: fake.port }]);
  assert.is(upstream.resolved_ip, undefined, 'the hop resolves the destinations, not the node');
  const target = { host: 'example.test', port: 5353 };
  // header: 3 + ATYP 1 + length 1 + 12 + port 2 = 19
  upstream.send(target, Buffer.from('query'));
  const reply = await events.nthReply(1);
  assert.equal(events.sends, [{ payloadBytes: 5, wireBytes: 19 + 5 }]);
  assert.equal(fake.datagrams.map((d) => [d.target, d.data]), [[target, 'query']]);
  assert.is(fake.datagrams[0]!.from.split(':')[0], upstream.control!.localAddress, 'sent from the control connection address');
  // The hop's answer is passed on as framed by the hop.
  assert.equal(reply.framed, Buffer.concat([encodeUdpHeader(target), Buffer.from('query')]));
  assert.is(reply.payloadBytes, 5);
  assert.is(reply.wireBytes, 24);
  upstream.close();
  await fake.close();
});

test('takes an unspecified BND.ADDR for the hop address', async () => {
  const fake = await fakeUdpHop({ boundHost: '0.0.0.0' });
  const events = new UpstreamRecorder();
  const upstream = await SocksUdpUpstream.open(hop(fake.port), 2000, events);
  upstream.send({ host: '10.0.0.1', port: 7 }, Buffer.from('x'));
  await events.nthReply(1);
  upstream.close();
  await fake.close();
});

test('refuses answers from the hop that are malformed or fragmented', async () => {
  const fake = await fakeUdpHop({
    answer: (target, data) => [
      Buffer.from([0, 0, 0, 9, 1]),
      Buffer.concat([encodeUdpHeader(target, 1), data]),
      Buffer.concat([encodeUdpHeader(target), data]),
    ],
  });
  const events = new UpstreamRecorder();
  const upstream = await SocksUdpUpstream.open(hop(fake.port), 2000, events);
  upstream.send({ host: '10.0.0.1', port: 7 }, Buffer.from('x'));
  await events.nthReply(1);
  await waitFor(() => events.recvFailures === 2, 1000, 'two refused answers');
  assert.is(events.replies.length, 1);
  upstream.close();
  await fake.close();
});

test('fails with HOP_REJECTED when the hop refuses UDP ASSOCIATE', async () => {
  const fake = await fakeUdpHop({ reply: 7 });
  const failure = await failureOf(SocksUdpUpstream.open(hop(fake.port), 2000, new UpstreamRecorder()));
  assert.is(failure.code, 'HOP_REJECTED');
  assert.is(failure.stage, 'hop:hop-u');
  assert.equal(failure.remote, { host: '127.0.0.1', port: fake.port });
  assert.is(failure.message, `hop "hop-u" (socks 127.0.0.1:${fake.port}) answered UDP ASSOCIATE with: command not supported`);
  await fake.close();
});

test('fails with HOP_REFUSED when nothing listens on the hop port', async () => {
  const failure = await failureOf(SocksUdpUpstream.open(hop(await freePort()), 2000, new UpstreamRecorder()));
  assert.is(failure.code, 'HOP_REFUSED');
  assert.is(failure.stage, 'hop:hop-u');
});

test('reports the association broken when the hop ends the control connection', async () => {
  const fake = await fakeUdpHop();
  const events = new UpstreamRecorder();
  const upstream = await SocksUdpUpstream.open(hop(fake.port), 2000, events);
  fake.dropAssociations();
  await waitFor(() => events.breaks.length > 0, 2000, 'broken');
  assert.ok(upstream.control!.destroyed, 'the upstream closed itself');
  assert.is(events.breaks.length, 1);
  assert.match(events.breaks[0]!.message, /hop "hop-u" (ended|closed) the control connection/);
  await fake.close();
});

test('says nothing after close', async () => {
  const fake = await fakeUdpHop();
  const events = new UpstreamRecorder();
  const upstream = await SocksUdpUpstream.open(hop(fake.port), 2000, events);
  upstream.close();
  fake.dropAssociations();
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(events.breaks, []);
  await fake.close();
});

test.run();
