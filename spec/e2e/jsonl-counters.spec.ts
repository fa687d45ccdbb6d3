import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { curl } from '../support/curl.js';
import { WAIT_MS } from '../support/far-bound.js';
import { startOrigin } from '../support/origin.js';
import { RESTARTABLE_API_KEY, restartableConfig } from '../support/restartable-config.js';
import { startNode } from '../support/start-node.js';
import { waitFor } from '../support/wait-for.js';

interface SinkView {
  tag: string;
  total_delivered: number;
}

async function archive(control: string): Promise<SinkView | undefined> {
  const res = await fetch(`${control}/api/v1/sinks`, { headers: { authorization: `Bearer ${RESTARTABLE_API_KEY}` } }).catch(() => null);
  if (!res?.ok) return undefined;
  return ((await res.json()) as { sinks: SinkView[] }).sinks.find((s) => s.tag === 'archive');
}

test('a JSONL sink counts on across a restart, as a Webhook sink does: total_delivered does not fall back to 0', async () => {
  const origin = await startOrigin();
  const { config, control } = await restartableConfig();
  const socks = `127.0.0.1:${(config['inbounds'] as { port: number }[])[0]!.port}`;
  try {
    const first = await startNode(config);
    for (let i = 0; i < 3; i++) assert.is((await curl(['--socks5-hostname', socks, origin.url('/bytes/10')])).code, 0);
    // Three flows of three lifecycle events each, engine.started and stats beside them.
    const before = await waitFor(async () => {
      const s = await archive(control);
      return s && s.total_delivered >= 10 ? s.total_delivered : undefined;
    }, WAIT_MS, 'the first run written');
    assert.is(await first.stop(), 0);

    const second = await startNode(config);
    try {
      const after = await waitFor(() => archive(control), WAIT_MS, 'the control plane of the second run');
      assert.ok(after.total_delivered > before, `${after.total_delivered} goes on from ${before}`);
    } finally {
      assert.is(await second.stop(), 0);
    }
  } finally {
    await origin.close();
  }
});

test.run();
