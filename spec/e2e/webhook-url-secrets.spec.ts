import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LineClient } from '../unit/ipc/line-client.js';
import { startOrigin } from '../support/origin.js';
import { waitFor } from '../support/wait-for.js';
import { runWeir } from '../support/weir-bin.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';
import { completedById, sourcePortOf } from '../support/webhook-expect.js';
import { HOOK_TOKEN, startHookNode, stopAll } from '../support/webhook-node.js';

// Secrets a receiver may take in its URL; none may show anywhere the node shows the URL.
const QUERY_SECRET = 's3cr3t-in-query';
const SIG_SECRET = 'sig-in-query-9d1e';
const NEXT_SIG_SECRET = 'sig-in-query-2b7a';
const USERINFO_SECRET = 'pw-in-userinfo';
const SECRETS = [QUERY_SECRET, SIG_SECRET, NEXT_SIG_SECRET, USERINFO_SECRET];

function delivered(receiver: WebhookReceiver, port: number): Promise<unknown> {
  return waitFor(
    () => [...completedById(receiver.acknowledged()).values()].some((e) => sourcePortOf(e) === port),
    10_000,
    `the flow.completed of the curl from port ${port}`,
  );
}

test('a secret in a Webhook URL shows nowhere the node shows the URL, and the POST still goes to the full URL', async () => {
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, hook: null });
  const texts: string[] = [];
  const pathOf = (sig: string): string => `/hook?token=${QUERY_SECRET}&sig=${sig}`;
  const shown = `http://127.0.0.1:${receiver.port}/hook?token=REDACTED&sig=REDACTED`;
  const billing = { type: 'webhook', tag: 'billing', url: receiver.url(pathOf(SIG_SECRET)), token: HOOK_TOKEN, events: ['flow.completed'], backoff_base_ms: 100, backoff_max_ms: 1000 };
  try {
    const withUserinfo = billing.url.replace('http://', `http://operator:${USERINFO_SECRET}@`);
    const refused = await hn.api('/config/apply', { method: 'POST', body: { upsert_sinks: [{ ...billing, url: withUserinfo }] } });
    assert.is(refused.status, 422, 'a user name or password in the URL is refused (the token authenticates the sink)');
    assert.match(refused.json.detail, /upsert_sinks\[0\]\.url: must not carry a user name or password/);

    const applied = await hn.api('/config/apply', { method: 'POST', body: { upsert_sinks: [billing] } });
    assert.is(applied.status, 200, applied.text);
    assert.equal(applied.json.sinks.added.map((s: { url: string }) => s.url), [shown]);
    await delivered(receiver, await hn.curlFlow());

    // IPC config.apply answers the same way: a changed query value replaces the sink.
    const ipc = await LineClient.connect(path.join(hn.node.stateDir, 'weir.sock'));
    try {
      ipc.send({ op: 'config.apply', id: 1, upsert_sinks: [{ ...billing, url: receiver.url(pathOf(NEXT_SIG_SECRET)) }] });
      const reply = await ipc.nextMatching((l) => l['id'] === 1);
      texts.push(JSON.stringify(reply));
      const result = reply['result'] as { sinks: { replaced: { url: string }[] } } | undefined;
      assert.equal(result?.sinks.replaced.map((s) => s.url), [shown], JSON.stringify(reply));
    } finally {
      ipc.close();
    }
    await delivered(receiver, await hn.curlFlow());
    const paths = new Set(receiver.requests().map((r) => r.path));
    assert.equal([...paths], [pathOf(SIG_SECRET), pathOf(NEXT_SIG_SECRET)], 'every POST went to the full URL, query included');

    // A refusing receiver gives the sink a last_error and a dead letter to show.
    receiver.respond(() => ({ status: 410 }));
    await hn.curlFlow();
    await hn.sinkWhen((s) => s.dead_letters === 1, 'the dead letter', { tag: 'billing' });
    for (const read of ['/sinks', '/sinks/billing/dead-letters', '/events', '/runtime']) assert.is((await hn.api(read)).status, 200, read);

    // A reload adds the file's own sink of the same URL: its answer and log line show it redacted.
    const config = JSON.parse(fs.readFileSync(hn.configPath, 'utf8')) as { event_sinks: unknown[] };
    config.event_sinks.push({ ...billing, tag: 'filed' });
    fs.writeFileSync(hn.configPath, JSON.stringify(config));
    const reload = await runWeir(['reload', '--json', '-c', hn.configPath]);
    assert.is(reload.code, 0, reload.stderr);
    assert.equal((JSON.parse(reload.stdout) as { sinks: { added: { url: string }[] } }).sinks.added.map((s) => s.url), [shown]);
    texts.push(reload.stdout, reload.stderr);

    assert.is(await hn.node.stop(), 0);
    const offline = await runWeir(['connector', 'state', '--json', hn.configPath]);
    assert.is(offline.code, 0, offline.stderr);
    texts.push(offline.stdout, offline.stderr, hn.node.stdout(), hn.node.stderr(), fs.readFileSync(hn.events, 'utf8'), ...hn.bodies);
    assert.ok(texts.some((t) => t.includes(shown)), 'the redacted URL is what is shown');
    for (const text of texts) for (const secret of [...SECRETS, HOOK_TOKEN]) assert.not.ok(text.includes(secret), `"${secret}" shown in: ${text.slice(0, 2000)}`);
  } finally {
    await stopAll(hn, receiver, origin);
  }
});

test.run();
