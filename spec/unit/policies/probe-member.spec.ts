import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DirectOutbound } from '../../../actors/outbounds/direct-outbound.js';
import { probeMember } from '../../../actors/policies/probe-member.js';
import { probeTarget } from '../../../actors/policies/probe-target.js';
import { FAR_MS, settlesBeforeFar } from '../../support/far-bound.js';
import { freePort } from '../../support/free-port.js';
import { Origin } from './fixtures.js';

const direct = (): DirectOutbound => new DirectOutbound('direct');
const opts = (timeoutMs = 1000) => ({ timeoutMs, signal: new AbortController().signal });

test('a 2xx answer is healthy, with the whole-ms latency from dial start to the status line', async () => {
  const origin = await Origin.start(80);
  try {
    const r = await probeMember('direct', direct, probeTarget(`http://127.0.0.1:${origin.port}/gen?x=1`), opts());
    assert.is(r.target_tag, 'direct');
    assert.is(r.healthy, true);
    assert.is(r.error, null);
    assert.ok(Number.isInteger(r.latency_ms) && r.latency_ms! >= 79, `latency ${r.latency_ms}`);
    assert.equal(origin.requests, [{ path: '/gen?x=1', host: `127.0.0.1:${origin.port}` }]);
  } finally {
    await origin.close();
  }
});

test('a 3xx answer is healthy', async () => {
  const origin = await Origin.start(0, 302);
  try {
    const r = await probeMember('direct', direct, probeTarget(`http://127.0.0.1:${origin.port}/`), opts());
    assert.is(r.healthy, true);
  } finally {
    await origin.close();
  }
});

test('a 5xx answer is unhealthy with its status, and keeps its latency', async () => {
  const origin = await Origin.start(0, 503);
  try {
    const r = await probeMember('direct', direct, probeTarget(`http://127.0.0.1:${origin.port}/`), opts());
    assert.is(r.healthy, false);
    assert.is(r.error, 'PROBE_HTTP_STATUS: HTTP status 503');
    assert.ok(Number.isInteger(r.latency_ms));
  } finally {
    await origin.close();
  }
});

test('an origin that never answers times out: unhealthy, latency null, bounded by the timeout', async () => {
  const origin = await Origin.start('never');
  try {
    const t0 = Date.now();
    const probe = probeMember('direct', direct, probeTarget(`http://127.0.0.1:${origin.port}/`), opts(300));
    const r = await settlesBeforeFar(probe, 'the probe of a silent origin');
    const took = Date.now() - t0;
    assert.equal(r, {
      target_tag: 'direct',
      healthy: false,
      latency_ms: null,
      error: 'PROBE_TIMEOUT: no HTTP status line within 300 ms',
    });
    assert.ok(took >= 295, `not before the timeout: ${took} ms`);
  } finally {
    await origin.close();
  }
});

test('a refused dial is unhealthy with the dial failure code', async () => {
  const port = await freePort();
  const r = await probeMember('direct', direct, probeTarget(`http://127.0.0.1:${port}/`), opts());
  assert.equal(r, {
    target_tag: 'direct',
    healthy: false,
    latency_ms: null,
    error: `DIAL_REFUSED: connect to 127.0.0.1:${port} failed: ECONNREFUSED`,
  });
});

test('a member that does not resolve to a leaf is unhealthy with the reason', async () => {
  const r = await probeMember('ghost', () => {
    throw new Error('unknown outbound tag "ghost"');
  }, probeTarget('http://127.0.0.1:1/'), opts());
  assert.equal(r, { target_tag: 'ghost', healthy: false, latency_ms: null, error: 'unknown outbound tag "ghost"' });
});

test('an abort ends the probe at once as unhealthy', async () => {
  const origin = await Origin.start('never');
  try {
    const abort = new AbortController();
    const pending = probeMember('direct', direct, probeTarget(`http://127.0.0.1:${origin.port}/`), {
      timeoutMs: FAR_MS,
      signal: abort.signal,
    });
    setTimeout(() => abort.abort(), 50);
    // Without the abort the probe would last until its FAR_MS timeout.
    const r = await settlesBeforeFar(pending, 'the aborted probe');
    assert.equal(r, { target_tag: 'direct', healthy: false, latency_ms: null, error: 'PROBE_ABORTED: the probe runner stopped' });
  } finally {
    await origin.close();
  }
});

test('an https url runs TLS with certificate checks over the member connection', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weir-probe-tls-'));
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1',
      '-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1',
      '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    const server = https.createServer(
      { key: fs.readFileSync(path.join(dir, 'key.pem')), cert: fs.readFileSync(path.join(dir, 'cert.pem')) },
      (_req, res) => res.writeHead(204).end(),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const r = await probeMember('direct', direct, probeTarget(`https://127.0.0.1:${port}/`), opts());
      assert.equal(r, {
        target_tag: 'direct',
        healthy: false,
        latency_ms: null,
        error: 'PROBE_TLS_FAILED: TLS handshake failed: self-signed certificate',
      });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
