import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WAIT_MS } from '../support/far-bound.js';
import { jsonOrUndefined } from '../support/json-or-undefined.js';
import { ofType, waitForEvents } from '../support/jsonl.js';
import { e2eConfig, eventsPath } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startNode } from '../support/start-node.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { runWeir } from '../support/weir-bin.js';

const API_KEY = 'e2e-api-key-not-a-secret';
// A probe target may take a token in its query; neither may show anywhere the node shows the URL.
const SECRET = 'probe-token-5c1f9e27';
const NEXT_SECRET = 'probe-token-8e42b0d3';

test("a url_test probe URL's query values show as REDACTED wherever the node shows it, while the origin is asked the full query", async () => {
  const origin = await startOrigin();
  const stateDir = tempDir('weir-probe-url-');
  const probePath = (token: string): string => `/bytes/2?token=${token}&v=2`;
  const auto = (token: string): Record<string, unknown> => ({ type: 'url_test', tag: 'auto', members: ['direct'], url: origin.url(probePath(token)) });
  const shown = origin.url('/bytes/2?token=REDACTED&v=REDACTED');
  const configOf = (token: string): Record<string, unknown> => ({
    ...e2eConfig({
      stateDir,
      inbounds: [{ type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port: 0 }],
      outbounds: [auto(token)],
      route: { final: 'auto' },
    }),
    // The most the node logs: a URL in any log line would show.
    log: { level: 'trace' },
    control: { listen: '127.0.0.1:0', api_key: API_KEY },
  });
  const node = await startNode(configOf(SECRET));
  const texts: string[] = [];
  const api = async (path: string, method = 'GET'): Promise<{ status: number; json: Record<string, unknown> }> => {
    const res = await fetch(`${node.controlUrl()}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${API_KEY}` },
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    texts.push(text);
    return { status: res.status, json: jsonOrUndefined(text) as Record<string, unknown> };
  };
  try {
    // The control plane listens a moment after the inbounds do.
    await waitFor(() => api('/health').then((r) => r.status === 200, () => false), WAIT_MS, 'the control plane');
    const rounds = (n: number, what: string) =>
      waitForEvents(eventsPath(stateDir), (es) => ofType(es, 'policy.probe.completed').length >= n, WAIT_MS, what).then((es) => ofType(es, 'policy.probe.completed'));
    // Done before the manual rounds, which would otherwise join it.
    await rounds(1, 'the startup round');

    const manual = await api('/policies/auto/probe', 'POST');
    assert.is(manual.status, 200);
    assert.is(manual.json['url'], shown, 'the REST answer');
    const ipc = await runWeir(['probe', 'auto', '--json', '-c', node.configPath]);
    assert.is(ipc.code, 0, ipc.stderr);
    assert.is((JSON.parse(ipc.stdout) as { url: string }).url, shown, 'the IPC answer');
    texts.push(ipc.stdout, ipc.stderr);

    const completed = await rounds(3, 'the two manual rounds');
    assert.equal(completed.map((e) => [e.payload['trigger'], e.payload['url']]), [['startup', shown], ['manual', shown], ['manual', shown]]);
    for (const read of ['/policies', '/runtime', '/events']) assert.is((await api(read)).status, 200, read);

    // A reload of a file whose probe URL carries another token: outbounds wait for a restart.
    fs.writeFileSync(node.configPath, JSON.stringify(configOf(NEXT_SECRET)));
    const reload = await runWeir(['reload', '--json', '-c', node.configPath]);
    assert.is(reload.code, 0, reload.stderr);
    assert.equal((JSON.parse(reload.stdout) as { restart_required: string[] }).restart_required, ['outbounds']);
    texts.push(reload.stdout, reload.stderr);

    assert.is(await node.stop(), 0);
    texts.push(node.stdout(), node.stderr(), fs.readFileSync(eventsPath(stateDir), 'utf8'));
    for (const text of texts) for (const secret of [SECRET, NEXT_SECRET]) assert.not.ok(text.includes(secret), `"${secret}" shown in: ${text.slice(0, 2000)}`);
    const asked = origin.connections().flatMap((c) => c.paths);
    assert.equal(asked, [probePath(SECRET), probePath(SECRET), probePath(SECRET)], 'every round asked the origin for the full query');
  } finally {
    await node.stop();
    await origin.close();
  }
});

test.run();
