import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { curl } from '../support/curl.js';
import { assertDirectDownload } from '../support/direct-download.js';
import { recordOf } from '../support/flow-expect.js';
import { knownFlows, nextFlow, nextFlows } from '../support/flow-lifecycle.js';
import { closedConnection } from '../support/origin.js';
import { proxyFixture } from '../support/proxy-fixture.js';
import { assertDirectBytes } from '../support/relay-bytes.js';
import { proxyGet, WireClient } from '../support/wire-client.js';

const OPEN = { tag: 'http-in', protocol: 'http' };
const GUARDED = { tag: 'http-auth', protocol: 'http' };
const CAROL_PW = 'carol-Pw-0c94be27';
const CAROL_BASIC = Buffer.from(`carol:${CAROL_PW}`).toString('base64');

const setup = proxyFixture(test, {
  inbounds: [
    { type: 'http', tag: OPEN.tag },
    { type: 'http', tag: GUARDED.tag, users: [{ username: 'carol', password: CAROL_PW }] },
  ],
});

test('forwards a plain HTTP request through the HTTP proxy as one direct_relayed flow', async () => {
  const { origin, events, proxy } = await setup();
  await assertDirectDownload(origin, events, { via: ['-x', `http://${proxy(OPEN.tag)}`], inbound: OPEN, bytes: 3000, label: 'http-plain', mode: 'forward' });
});

test('makes each request on a keep-alive client connection its own flow', async () => {
  const { origin, events, proxy } = await setup();
  const known = knownFlows(events);
  const [a, b] = ['/bytes/100?case=keepalive-1', '/bytes/200?case=keepalive-2'];
  const res = await curl(['-x', `http://${proxy(OPEN.tag)}`, origin.url(a), origin.url(b)]);
  assert.is(res.code, 0, res.stderr);
  assert.is(res.body.length, 300);

  const flows = await nextFlows(events, known, 2);
  const records = flows.map((f) => recordOf(f.completed));
  assert.is(records[0]!.source!.port, records[1]!.source!.port, 'one client connection carried both');
  assertDirectBytes(records[0]!, await closedConnection(origin, a), 'forward');
  assertDirectBytes(records[1]!, await closedConnection(origin, b), 'forward');
});

test('splits a pipelining client connection between its flows without counting a byte twice', async () => {
  const { origin, events, proxy } = await setup();
  const known = knownFlows(events);
  const paths = ['/bytes/100?case=pipelined-1', '/bytes/200?case=pipelined-2', '/bytes/300?case=pipelined-3'];
  const wire = await WireClient.open(proxy(OPEN.tag));
  const client = await wire.last(paths.map((p, i) => proxyGet(origin.url(p), { close: i === paths.length - 1 })).join(''));

  const records = (await nextFlows(events, known, paths.length)).map((f) => recordOf(f.completed));
  const sum = (key: 'inbound_rx_bytes' | 'inbound_tx_bytes'): number => records.reduce((n, r) => n + r.traffic[key], 0);
  assert.is(sum('inbound_rx_bytes'), client.sent, 'the flows share what the client sent');
  assert.is(sum('inbound_tx_bytes'), client.received, 'the flows share what the client received');
  for (const path of paths) {
    const record = records.find((r) => r.target.port === origin.port && origin.connectionFor(path)?.bytesWritten === r.traffic.bytes_down);
    assert.ok(record, `a flow carried ${path}`);
  }
});

test('authenticates HTTP basic proxy credentials as http_basic with the username as principal_key', async () => {
  const { origin, events, proxy } = await setup();
  await assertDirectDownload(origin, events, {
    via: ['-x', `http://carol:${CAROL_PW}@${proxy(GUARDED.tag)}`],
    inbound: GUARDED,
    auth: { scheme: 'http_basic', principal_key: 'carol', attributes: { username: 'carol' } },
    bytes: 512,
    label: 'http-basic',
    mode: 'forward',
  });
});

test('answers 407 with a Basic challenge to missing or wrong credentials, without a flow', async () => {
  const { origin, events, proxy } = await setup();
  const known = knownFlows(events);
  for (const creds of ['', 'carol:wrong@']) {
    const res = await curl(['-x', `http://${creds}${proxy(GUARDED.tag)}`, '-D', '-', '-o', '/dev/null', origin.url('/bytes/1')]);
    const head = res.body.toString();
    assert.match(head, /^HTTP\/1\.1 407 /, `status for "${creds}"`);
    assert.match(head, /\r\nProxy-Authenticate: Basic realm="weir"\r\n/i);
  }
  const ok = await curl(['-x', `http://carol:${CAROL_PW}@${proxy(GUARDED.tag)}`, origin.url('/bytes/1?case=after-407')]);
  assert.is(ok.code, 0, ok.stderr);
  // The good request is the only new flow: the 407 answers opened none.
  const flow = await nextFlow(events, known);
  assert.is(flow.completed.principal_key, 'carol');
});

test('a 407 answer on a keep-alive connection counts in no flow: the retry with credentials counts only its own bytes', async () => {
  const { origin, events, proxy } = await setup();
  const known = knownFlows(events);
  const url = origin.url('/bytes/40?case=407-then-retry');
  const wire = await WireClient.open(proxy(GUARDED.tag));
  await wire.exchange(proxyGet(url));
  const retry = await wire.last(proxyGet(url, { auth: CAROL_BASIC, close: true }));
  const t = recordOf((await nextFlow(events, known)).completed).traffic;
  assert.equal([t.inbound_rx_bytes, t.inbound_tx_bytes], [retry.sent, retry.received]);
});

test('a CONNECT after a plain request on one connection counts only the tunnel', async () => {
  const { origin, events, proxy } = await setup();
  const known = knownFlows(events);
  const wire = await WireClient.open(proxy(OPEN.tag));
  const plain = await wire.exchange(proxyGet(origin.url('/bytes/60?case=plain-then-connect')));
  const connect = await wire.exchange(`CONNECT 127.0.0.1:${origin.port} HTTP/1.1\r\nHost: 127.0.0.1:${origin.port}\r\n\r\n`);
  const tunnelled = await wire.last('GET /bytes/70?case=connect-after-plain HTTP/1.1\r\nHost: origin\r\nConnection: close\r\n\r\n');

  const [forwarded, tunnel] = (await nextFlows(events, known, 2)).map((f) => recordOf(f.completed));
  assert.is(forwarded!.target.port, origin.port);
  assert.equal([forwarded!.traffic.inbound_rx_bytes, forwarded!.traffic.inbound_tx_bytes], [plain.sent, plain.received]);
  const t = tunnel!.traffic;
  assert.equal([t.inbound_rx_bytes, t.inbound_tx_bytes], [connect.sent + tunnelled.sent, connect.received + tunnelled.received]);
  assert.is(t.bytes_down, (await closedConnection(origin, '/bytes/70?case=connect-after-plain')).bytesWritten);
});

test('never writes the password or its Basic encoding to the sink file, stdout or stderr', async () => {
  const { node, events } = await setup();
  await stopAndAudit(node, events);
  const outputs = { sink: fs.readFileSync(events, 'utf8'), stdout: node.stdout(), stderr: node.stderr() };
  for (const [where, text] of Object.entries(outputs)) {
    assert.not.ok(text.includes(CAROL_PW), `${where} holds the password`);
    assert.not.ok(text.includes(CAROL_BASIC), `${where} holds the Basic credentials`);
  }
});

test.run();
