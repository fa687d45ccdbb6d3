import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { curl } from '../support/curl.js';
import { SseClient } from '../support/event-clients.js';
import { settlesBeforeFar, WAIT_MS } from '../support/far-bound.js';
import { freePort } from '../support/free-port.js';
import { httpsFetch } from '../support/https-fetch.js';
import { startNode, type WeirNode } from '../support/start-node.js';
import { testCa, type CertFiles, type TestCa } from '../support/test-ca.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { runWeir } from '../support/weir-bin.js';
import { spawnWeir } from '../support/weir-child.js';
import { loudBefore } from '../support/loud-before.js';

const KEY = 'tls-spec-key-0123456789abcdef';
let ca: TestCa;
let server: CertFiles;
let renewed: CertFiles;
let client: CertFiles;
let expired: CertFiles;
let node: WeirNode;
let metricsPort: number;
const nodes: WeirNode[] = [];

/** A node config whose control.tls points at copies of `pair` in its own dir (so a spec may replace them). */
function tlsConfig(dir: string, pair: CertFiles, extra: { client_ca?: string; metrics_listen?: string } = {}): Record<string, unknown> {
  fs.mkdirSync(dir, { recursive: true });
  fs.copyFileSync(pair.cert, path.join(dir, 'control.pem'));
  fs.copyFileSync(pair.key, path.join(dir, 'control.key'));
  const { metrics_listen, client_ca } = extra;
  return {
    node: { id: 'tls-e2e', state_dir: dir },
    log: { level: 'info' },
    control: {
      listen: '127.0.0.1:0',
      api_key: KEY,
      tls: { cert: 'control.pem', key: 'control.key', ...(client_ca && { client_ca }) },
      ...(metrics_listen && { metrics_listen }),
    },
    inbounds: [{ type: 'mixed', tag: 'mixed-in', listen: '127.0.0.1', port: 0 }],
    outbounds: [{ type: 'direct', tag: 'direct' }],
  };
}

async function start(config: Record<string, unknown>): Promise<WeirNode> {
  const started = await startNode(config);
  nodes.push(started);
  return started;
}

const portOf = (n: WeirNode): number => Number(new URL(n.controlUrl()).port);

/** The fingerprint of the certificate a TLS handshake with `port` presents. */
function presented(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, ca: fs.readFileSync(ca.caCert) }, () => {
      resolve(socket.getPeerCertificate().fingerprint256);
      socket.end();
    });
    socket.once('error', reject);
  });
}

loudBefore(test, async () => {
  ca = await testCa();
  [server, renewed, client, expired] = await Promise.all([ca.issue('server'), ca.issue('renewed'), ca.issue('client', { client: true }), ca.issue('expired', { days: -1 })]);
  metricsPort = await freePort();
  node = await start(tlsConfig(tempDir(), server, { metrics_listen: `127.0.0.1:${metricsPort}` }));
});
test.after(async () => {
  for (const n of nodes) await n.stop();
});

test('curl reaches the API, the Clash API and /metrics over HTTPS with the test CA; plain HTTP gets nothing', async () => {
  const base = node.controlUrl();
  assert.match(base, /^https:\/\/127\.0\.0\.1:\d+$/);
  const stats = await curl(['--cacert', ca.caCert, '-H', `Authorization: Bearer ${KEY}`, `${base}/api/v1/stats`]);
  assert.is(stats.code, 0, stats.stderr);
  assert.type(JSON.parse(stats.body.toString()).active_sessions, 'number');
  const clash = await curl(['--cacert', ca.caCert, '-H', `Authorization: Bearer ${KEY}`, `${base}/version`]);
  assert.equal(JSON.parse(clash.body.toString()).meta, true);
  const metrics = await curl(['--cacert', ca.caCert, `https://127.0.0.1:${metricsPort}/metrics`]);
  assert.is(metrics.code, 0, metrics.stderr);
  assert.match(metrics.body.toString(), /^# HELP /m);
  const plain = await curl(['-H', `Authorization: Bearer ${KEY}`, `http://127.0.0.1:${portOf(node)}/api/v1/stats`]);
  assert.is.not(plain.code, 0, 'plain HTTP to the TLS listener');
  const untrusted = await curl(['-H', `Authorization: Bearer ${KEY}`, `${base}/api/v1/stats`]);
  assert.is(untrusted.code, 60, 'a client without the CA does not trust the certificate');
});

test('an EventSource and a WebSocket stream events over TLS', async () => {
  const sse = new SseClient(`${node.controlUrl()}/api/v1/events/stream?types=flow.started`, { key: KEY, fetch: httpsFetch({ ca: fs.readFileSync(ca.caCert) }) });
  const ws = new WebSocket(`wss://127.0.0.1:${portOf(node)}/api/v1/events/ws?types=flow.started`, { headers: { authorization: `Bearer ${KEY}` }, ca: fs.readFileSync(ca.caCert) });
  const messages: string[] = [];
  ws.on('message', (data) => messages.push(String(data)));
  try {
    await waitFor(() => sse.frames.length > 0 && messages.length > 0, WAIT_MS, 'the snapshot on both streams');
    assert.is(sse.frames[0]!.event, 'flow.snapshot');
    assert.is((JSON.parse(messages[0]!) as { event_type: string }).event_type, 'flow.snapshot');
  } finally {
    sse.close();
    ws.terminate();
  }
});

test('with client_ca, a client without a certificate is refused in the handshake; one with it is served', async () => {
  const mtls = await start(tlsConfig(tempDir(), server, { client_ca: ca.caCert }));
  const url = `${mtls.controlUrl()}/api/v1/stats`;
  const without = await curl(['--cacert', ca.caCert, '-H', `Authorization: Bearer ${KEY}`, url]);
  assert.is.not(without.code, 0, 'no client certificate');
  assert.is(without.body.length, 0);
  const withCert = await curl(['--cacert', ca.caCert, '--cert', client.cert, '--key', client.key, '-H', `Authorization: Bearer ${KEY}`, url]);
  assert.is(withCert.code, 0, withCert.stderr);
  assert.type(JSON.parse(withCert.body.toString()).active_sessions, 'number');
  // A certificate of another CA is refused like none.
  const stranger = await testCa();
  const other = await stranger.issue('client', { client: true });
  const wrongCa = await curl(['--cacert', ca.caCert, '--cert', other.cert, '--key', other.key, '-H', `Authorization: Bearer ${KEY}`, url]);
  assert.is.not(wrongCa.code, 0);
});

test('a new pair that cannot serve keeps the certificate in use, with a warning; a good one is taken, on change and on SIGHUP', async () => {
  const port = portOf(node);
  const dir = node.stateDir;
  assert.is(await presented(port), server.fingerprint);
  // A certificate whose key is not beside it: mismatched.
  fs.copyFileSync(renewed.cert, path.join(dir, 'control.pem'));
  await waitFor(() => node.stdout().includes('control TLS not reloaded'), WAIT_MS, 'the warning');
  const warning = node.stdout().split('\n').find((l) => l.includes('control TLS not reloaded'))!;
  assert.match(warning, /"level":40/);
  assert.match(warning, /TLS_KEY_MISMATCH/);
  assert.ok(warning.includes(path.join(dir, 'control.key')), 'the warning names the file');
  assert.is(await presented(port), server.fingerprint, 'the old certificate stays in use');
  fs.copyFileSync(renewed.key, path.join(dir, 'control.key'));
  await waitFor(async () => (await presented(port)) === renewed.fingerprint, WAIT_MS, 'the renewed certificate');
  // An expired pair on SIGHUP: refused, the renewed one stays.
  fs.copyFileSync(expired.cert, path.join(dir, 'control.pem'));
  fs.copyFileSync(expired.key, path.join(dir, 'control.key'));
  process.kill(node.pid, 'SIGHUP');
  const onSignal = (): string[] => node.stdout().split('\n').filter((l) => l.includes('control TLS not reloaded') && l.includes('"reason":"signal"'));
  await waitFor(() => onSignal().length > 0, WAIT_MS, 'the expired pair refused on SIGHUP');
  assert.match(onSignal()[0]!, /TLS_CERT_EXPIRED/);
  assert.is(await presented(port), renewed.fingerprint);
  const text = node.stdout() + node.stderr();
  for (const pem of [server, renewed, expired].map((p) => fs.readFileSync(p.key, 'utf8').split('\n')[1]!)) assert.not.ok(text.includes(pem), 'a private key in the log');
});

/** `weir run` on `config` must exit 1 and say why, naming `file`. */
async function refusedAtStart(config: Record<string, unknown>, file: string, words: RegExp): Promise<void> {
  const dir = (config['node'] as { state_dir: string }).state_dir;
  const configPath = path.join(dir, 'weir.json');
  fs.writeFileSync(configPath, JSON.stringify(config));
  const weir = spawnWeir(['run', '-c', configPath]);
  // Bounded, and a timer keeps the runner alive while the unreferenced child runs.
  const code = await settlesBeforeFar(weir.exit, 'weir run to exit');
  assert.is(code, 1, weir.stderr());
  assert.ok(weir.stderr().includes(file), `names ${file}: ${weir.stderr()}`);
  assert.match(weir.stderr(), words);
}

test('a missing, expired or mismatched certificate at start is a clear error naming the file', async () => {
  const missing = tempDir();
  const config = tlsConfig(missing, server);
  fs.rmSync(path.join(missing, 'control.key'));
  await refusedAtStart(config, path.join(missing, 'control.key'), /cannot start: control\.tls\.key .*cannot read it \(ENOENT\)/);
  const old = tempDir();
  await refusedAtStart(tlsConfig(old, expired), path.join(old, 'control.pem'), /cannot start: control\.tls\.cert .*expired on /);
  const mixed = tempDir();
  const mixedConfig = tlsConfig(mixed, server);
  fs.copyFileSync(renewed.key, path.join(mixed, 'control.key'));
  await refusedAtStart(mixedConfig, path.join(mixed, 'control.key'), /is not the private key of the certificate in /);
});

test('a control.listen beyond loopback without TLS is refused by validate and run, unless insecure_plaintext says so', async () => {
  const dir = tempDir();
  const plain = { control: { listen: '0.0.0.0:0', api_key: KEY }, outbounds: [{ type: 'direct', tag: 'direct' }] };
  const file = path.join(dir, 'plain.json');
  fs.writeFileSync(file, JSON.stringify(plain));
  const refused = await runWeir(['validate', file]);
  assert.is(refused.code, 1);
  assert.match(refused.stderr, /control\.listen: 0\.0\.0\.0:0 is reachable beyond this machine, and without control\.tls the API keys cross the network in cleartext/);
  const ran = await runWeir(['run', '-c', file]);
  assert.is(ran.code, 1);
  assert.match(ran.stderr, /control\.listen: 0\.0\.0\.0:0 is reachable beyond this machine/);
  const allowed = path.join(dir, 'allowed.json');
  fs.writeFileSync(allowed, JSON.stringify({ ...plain, control: { ...plain.control, insecure_plaintext: true } }));
  assert.is((await runWeir(['validate', allowed])).code, 0);
  const withTls = path.join(dir, 'tls.json');
  fs.writeFileSync(withTls, JSON.stringify({ ...plain, control: { ...plain.control, tls: { cert: server.cert, key: server.key } } }));
  assert.is((await runWeir(['validate', withTls])).code, 0);
});

test.run();
