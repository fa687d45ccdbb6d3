import { spawn } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { reap } from '../support/child-reaper.js';
import { directRelayed } from '../support/direct-download.js';
import { assertFlow, recordOf } from '../support/flow-expect.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { proxyFixture } from '../support/proxy-fixture.js';

const SOCKS = { tag: 'socks-in', protocol: 'socks' };
const HTTP = { tag: 'http-in', protocol: 'http' };
const CURL_PATH = '/usr/bin/curl';

const setup = proxyFixture(test, {
  inbounds: [
    { type: 'socks', tag: SOCKS.tag },
    { type: 'http', tag: HTTP.tag },
  ],
  route: { process_lookup: true },
});

/** Runs curl and resolves with its pid once it has exited 0. */
function curlPid(args: readonly string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('curl', ['--silent', '--show-error', '--max-time', '10', '-o', '/dev/null', ...args], { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' } });
    reap(child);
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(child.pid!) : reject(new Error(`curl exited ${code}: ${stderr}`))));
  });
}

// The origin trickles its answer for ~450 ms: the lookup runs beside the flow and must find curl still connected.
const SLOW = '/trickle?chunks=3&size=10&every_ms=150';

test('names the curl process behind a SOCKS5 flow', async () => {
  const { origin, events, proxy } = await setup();
  const known = knownFlows(events);
  const pid = await curlPid(['--socks5', proxy(SOCKS.tag), origin.url(`${SLOW}&case=process-socks`)]);
  const flow = await nextFlow(events, known);
  assertFlow(flow, directRelayed(SOCKS, origin.port));
  const source = recordOf(flow.completed).source!;
  assert.equal(source, { ip: '127.0.0.1', port: source.port, process_id: pid, process_name: 'curl', process_path: CURL_PATH });
  assert.equal(Object.keys(recordOf(flow.started).source!).sort(), ['ip', 'port'], 'flow.started does not wait for the lookup');
});

test('names the curl process behind a plain HTTP forwarded flow', async () => {
  const { origin, events, proxy } = await setup();
  const known = knownFlows(events);
  const pid = await curlPid(['-x', `http://${proxy(HTTP.tag)}`, origin.url(`${SLOW}&case=process-forward`)]);
  const flow = await nextFlow(events, known);
  const source = recordOf(flow.completed).source!;
  assert.equal(source, { ip: '127.0.0.1', port: source.port, process_id: pid, process_name: 'curl', process_path: CURL_PATH });
});

test('a flow that outlives a sample carries the process in flow.updated', async () => {
  const { origin, events, proxy } = await setup();
  const known = knownFlows(events);
  // ~2.4 s: sampled more than once, so a lookup slowed by a busy machine lands before a later sample.
  const pid = await curlPid(['-p', '-x', `http://${proxy(HTTP.tag)}`, origin.url('/trickle?chunks=6&size=10&every_ms=400&case=process-updated')]);
  const flow = await nextFlow(events, known);
  assert.ok(flow.updated.length > 0, 'the flow was sampled');
  const found = flow.updated.map((u) => recordOf(u).source?.process_id);
  assert.ok(found.includes(pid), `a flow.updated names curl (pid ${pid}); they carried ${JSON.stringify(found)}`);
});

test('writes a sink file of valid envelopes with every flow complete', async () => {
  const { node, events } = await setup();
  await stopAndAudit(node, events);
});

test.run();
