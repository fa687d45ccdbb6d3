import net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sniffTlsSni } from '../../actors/sniff/tls-sni.js';
import { stopAndAudit } from '../support/audit.js';
import { curl } from '../support/curl.js';
import { DIRECT, FINAL_DIRECT, NO_AUTH, assertFlow, recordOf } from '../support/flow-expect.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { fixture } from '../support/fixture.js';
import { settlesBeforeFar } from '../support/far-bound.js';
import { e2eConfig, eventsPath } from '../support/node-config.js';
import { closedConnection, startOrigin } from '../support/origin.js';
import { assertDirectBytes } from '../support/relay-bytes.js';
import { startNode } from '../support/start-node.js';
import { tempDir } from '../support/temp-dir.js';

const SOCKS = { tag: 'socks-in', protocol: 'socks' };
const HTTP = { tag: 'http-in', protocol: 'http' };
const SNIFF_TIMEOUT_MS = 250;
const BLOCK_SNIFFED = { target: 'block', matched_rule: { index: 0, condition: 'domain_suffix=sniffed.test' } };
const DIRECT_TLS = { target: 'direct', matched_rule: { index: 1, condition: 'domain=tls.routed.test' } };

/** A TCP server that keeps what each connection sent, and may speak first. */
async function startRawServer(banner: string | null): Promise<{ port: number; received: Buffer[]; close(): void }> {
  const received: Buffer[] = [];
  const server = net.createServer((socket) => {
    const chunks: Buffer[] = [];
    received.push(Buffer.alloc(0));
    const index = received.length - 1;
    socket.on('data', (d: Buffer) => {
      chunks.push(d);
      received[index] = Buffer.concat(chunks);
      // A TLS origin that does not speak TLS: it hangs up after the hello.
      if (banner === null) socket.end();
    });
    socket.on('error', () => undefined);
    if (banner !== null) socket.end(banner);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return { port: (server.address() as net.AddressInfo).port, received, close: () => server.close() };
}

const setup = fixture(
  test,
  async () => {
    const stateDir = tempDir();
    const config = e2eConfig({
      stateDir,
      inbounds: [
        { type: 'socks', tag: SOCKS.tag, listen: '127.0.0.1', port: 0 },
        { type: 'http', tag: HTTP.tag, listen: '127.0.0.1', port: 0 },
      ],
      rules: [
        { domain_suffix: ['sniffed.test'], outbound: 'block' },
        { domain: ['tls.routed.test'], outbound: 'direct' },
      ],
    });
    config['route'] = { ...(config['route'] as object), sniff_timeout_ms: SNIFF_TIMEOUT_MS };
    const [origin, tlsOrigin, banner, node] = await Promise.all([startOrigin(), startRawServer(null), startRawServer('220 banner\r\n'), startNode(config)]);
    return { origin, tlsOrigin, banner, node, events: eventsPath(stateDir), socks: `127.0.0.1:${node.ports[SOCKS.tag]}`, http: `127.0.0.1:${node.ports[HTTP.tag]}` };
  },
  async ({ origin, tlsOrigin, banner, node }) => {
    await node.stop();
    await origin.close();
    tlsOrigin.close();
    banner.close();
  },
);

test('blocks a SOCKS5 flow to an IP by the HTTP Host it carries', async () => {
  const { origin, events, socks } = await setup();
  const known = knownFlows(events);
  const res = await curl(['--socks5', socks, '-H', 'Host: www.sniffed.test', origin.url('/bytes/10?case=sniff-host')]);
  assert.is.not(res.code, 0, 'curl fails: the tunnel closes after the sniff');
  const flow = await nextFlow(events, known);
  const target = { host: '127.0.0.1', port: origin.port };
  assertFlow(flow, { inbound: SOCKS, auth: NO_AUTH, target, route: BLOCK_SNIFFED, outcome: 'blocked' });
  assert.equal(recordOf(flow.completed).target, { ...target, sniffed_host: 'www.sniffed.test' });
  assert.is(origin.connectionFor('/bytes/10?case=sniff-host'), undefined, 'the origin never saw the request');
});

test('routes a SOCKS5 flow to an IP by its TLS server name and hands the hello on intact', async () => {
  const { tlsOrigin, events, socks } = await setup();
  const known = knownFlows(events);
  const before = tlsOrigin.received.length;
  const url = `https://tls.routed.test:${tlsOrigin.port}/`;
  await curl(['--socks5', socks, '-k', '--resolve', `tls.routed.test:${tlsOrigin.port}:127.0.0.1`, url]);
  const flow = await nextFlow(events, known);
  const target = { host: '127.0.0.1', port: tlsOrigin.port };
  assertFlow(flow, { inbound: SOCKS, auth: NO_AUTH, target, route: DIRECT_TLS, outbound: DIRECT, outcome: 'direct_relayed' });
  const sniffed = { ...target, sniffed_host: 'tls.routed.test', resolved_ip: '127.0.0.1' };
  assert.equal(recordOf(flow.routed!).target, sniffed, 'flow.routed has the sniffed host');
  assert.equal(recordOf(flow.completed).target, sniffed);
  assert.is(tlsOrigin.received.length, before + 1);
  const hello = tlsOrigin.received[before]!;
  assert.equal(sniffTlsSni(hello), { kind: 'host', host: 'tls.routed.test' }, 'the origin got the whole ClientHello');
  assert.is(recordOf(flow.completed).traffic.bytes_up, hello.length);
});

test('relays a sniffed SOCKS5 flow that no rule matches byte for byte', async () => {
  const { origin, events, socks } = await setup();
  const known = knownFlows(events);
  const path = '/bytes/3000?case=sniff-final';
  const res = await curl(['--socks5', socks, '-H', 'Host: plain.test', origin.url(path)]);
  assert.is(res.code, 0, res.stderr);
  assert.is(res.body.length, 3000);
  const flow = await nextFlow(events, known);
  const target = { host: '127.0.0.1', port: origin.port };
  assertFlow(flow, { inbound: SOCKS, auth: NO_AUTH, target, route: FINAL_DIRECT, outbound: DIRECT, outcome: 'direct_relayed' });
  assert.equal(recordOf(flow.completed).target, { ...target, resolved_ip: '127.0.0.1', sniffed_host: 'plain.test' });
  assertDirectBytes(recordOf(flow.completed), await closedConnection(origin, path));
});

test('blocks an HTTP CONNECT tunnel to an IP by the Host sent inside it', async () => {
  const { origin, events, http } = await setup();
  const known = knownFlows(events);
  const res = await curl(['-p', '-x', `http://${http}`, '-H', 'Host: api.sniffed.test', origin.url('/bytes/10?case=sniff-connect')]);
  assert.is.not(res.code, 0, 'curl fails');
  const flow = await nextFlow(events, known);
  const target = { host: '127.0.0.1', port: origin.port };
  assertFlow(flow, { inbound: HTTP, auth: NO_AUTH, target, route: BLOCK_SNIFFED, outcome: 'blocked' });
  assert.equal(recordOf(flow.completed).target, { ...target, sniffed_host: 'api.sniffed.test' });
});

test('relays a sniffed HTTP CONNECT tunnel byte for byte', async () => {
  const { origin, events, http } = await setup();
  const known = knownFlows(events);
  const path = '/bytes/2000?case=sniff-connect-final';
  const res = await curl(['-p', '-x', `http://${http}`, '-H', 'Host: other.test', origin.url(path)]);
  assert.is(res.code, 0, res.stderr);
  assert.is(res.body.length, 2000);
  const flow = await nextFlow(events, known);
  const target = { host: '127.0.0.1', port: origin.port };
  assertFlow(flow, { inbound: HTTP, auth: NO_AUTH, target, route: FINAL_DIRECT, outbound: DIRECT, outcome: 'direct_relayed' });
  assert.is(recordOf(flow.completed).target.sniffed_host, 'other.test');
  assertDirectBytes(recordOf(flow.completed), await closedConnection(origin, path));
});

test('routes a client that waits for the server to speak after the sniff timeout', async () => {
  const { banner, events, socks } = await setup();
  const known = knownFlows(events);
  const started = Date.now();
  const { reply, greeting } = await socks5Connect(socks, banner.port);
  const waited = Date.now() - started;
  assert.equal([...reply.subarray(0, 2)], [5, 0], 'SOCKS5 success');
  assert.is(greeting, '220 banner\r\n');
  assert.ok(waited >= SNIFF_TIMEOUT_MS, `the banner came after the sniff timeout (${waited} ms)`);
  const flow = await nextFlow(events, known);
  const target = { host: '127.0.0.1', port: banner.port };
  assertFlow(flow, { inbound: SOCKS, auth: NO_AUTH, target, route: FINAL_DIRECT, outbound: DIRECT, outcome: 'direct_relayed' });
  assert.equal(recordOf(flow.completed).target, { ...target, resolved_ip: '127.0.0.1' }, 'nothing sniffed');
});

test('sniffs a flow to a host name from its first relayed bytes, after routing', async () => {
  const { origin, events, socks } = await setup();
  const known = knownFlows(events);
  const path = '/bytes/100?case=sniff-domain';
  const res = await curl(['--socks5-hostname', socks, '-H', 'Host: seen.test', `http://localhost:${origin.port}${path}`]);
  assert.is(res.code, 0, res.stderr);
  const flow = await nextFlow(events, known);
  const target = { host: 'localhost', port: origin.port };
  assertFlow(flow, { inbound: SOCKS, auth: NO_AUTH, target, route: FINAL_DIRECT, outbound: DIRECT, outcome: 'direct_relayed' });
  assert.equal(recordOf(flow.routed!).target, { ...target, resolved_ip: '127.0.0.1' }, 'routed before anything was sniffed');
  assert.equal(recordOf(flow.completed).target, { ...target, resolved_ip: '127.0.0.1', sniffed_host: 'seen.test' });
});

test('a client that half-closes while it is sniffed has its FIN passed on: the flow ends with the origin, not by idle timeout', async () => {
  const { events, socks } = await setup();
  // Answers only once the client's FIN reaches it.
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    socket.resume();
    socket.on('end', () => socket.end('bye\n'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  try {
    const known = knownFlows(events);
    const { socket, reply } = await socks5Tunnel(socks, port);
    assert.equal([...reply.subarray(0, 2)], [5, 0], 'SOCKS5 success, answered before the sniff');
    const partial = 'GET / HTTP/1.1\r\nHost: ';
    const answer: Buffer[] = [];
    socket.on('data', (d: Buffer) => answer.push(d));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    // A head the sniffer waits on for more, then the client's FIN.
    socket.end(partial);
    await settlesBeforeFar(closed, "the tunnel's close").finally(() => socket.destroy());
    assert.is(Buffer.concat(answer).toString(), 'bye\n', 'the origin saw the FIN and answered');
    const flow = await nextFlow(events, known);
    const target = { host: '127.0.0.1', port };
    assertFlow(flow, { inbound: SOCKS, auth: NO_AUTH, target, route: FINAL_DIRECT, outbound: DIRECT, outcome: 'direct_relayed' });
    const record = recordOf(flow.completed);
    assert.is(record.result?.close_reason, null, 'an ordinary end, not idle_timeout');
    assert.equal([record.traffic.bytes_up, record.traffic.bytes_down], [partial.length, 4]);
  } finally {
    server.close();
  }
});

test('writes a sink file of valid envelopes with every flow complete', async () => {
  const { node, events } = await setup();
  await stopAndAudit(node, events);
});

/** A bare SOCKS5 client: no-auth greeting, CONNECT to 127.0.0.1:port; resolves with the open tunnel and its 10-byte reply. */
function socks5Tunnel(proxy: string, port: number): Promise<{ socket: net.Socket; reply: Buffer; rest: Buffer }> {
  const [host = '', proxyPort = ''] = proxy.split(':');
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(proxyPort), host);
    let buffered = Buffer.alloc(0);
    let stage = 0;
    const timer = setTimeout(() => reject(new Error(`SOCKS5 exchange stuck at stage ${stage}`)), 5000);
    const onData = (d: Buffer): void => {
      buffered = Buffer.concat([buffered, d]);
      if (stage === 0 && buffered.length >= 2) {
        buffered = buffered.subarray(2);
        stage = 1;
        socket.write(Buffer.from([5, 1, 0, 1, 127, 0, 0, 1, port >> 8, port & 0xff]));
      }
      if (stage === 1 && buffered.length >= 10) {
        clearTimeout(timer);
        socket.off('data', onData);
        resolve({ socket, reply: buffered.subarray(0, 10), rest: buffered.subarray(10) });
      }
    };
    socket.on('error', reject);
    socket.on('data', onData);
    socket.on('connect', () => socket.write(Buffer.from([5, 1, 0])));
  });
}

/** Through socks5Tunnel: waits for the server's first words (12 bytes), then hangs up. */
async function socks5Connect(proxy: string, port: number): Promise<{ reply: Buffer; greeting: string }> {
  const { socket, reply, rest } = await socks5Tunnel(proxy, port);
  let greeting = rest;
  while (greeting.length < 12) greeting = Buffer.concat([greeting, await once(socket, 'data')]);
  socket.destroy();
  return { reply, greeting: greeting.toString() };
}

function once(socket: net.Socket, event: 'data'): Promise<Buffer> {
  return new Promise((resolve) => socket.once(event, resolve));
}

test.run();
