import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ConnectorState } from '../../actors/contracts/sink.js';
import { startOrigin } from '../support/origin.js';
import { waitFor } from '../support/wait-for.js';
import { HOOK_TOKEN, startHookNode, stopAll } from '../support/webhook-node.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { runWeir } from '../support/weir-bin.js';

// `weir status` as an operator reads it while a Webhook receiver fails, then recovers.

/** The `hook` row of the status text's sink table, split on its runs of spaces. */
function hookRow(text: string): string[] {
  const line = text.split('\n').find((l) => l.startsWith('hook '));
  assert.ok(line, text);
  return line.split(/ {2,}/);
}

test('a sink error shows its age while failing, is marked past once deliveries succeed; --json has stats and sinks', async () => {
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  receiver.respond(() => ({ status: 503 }));
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, hook: { url: receiver.url() } });
  const status = (...args: string[]) => runWeir(['status', ...args, '-c', hn.configPath]);
  try {
    await hn.curlFlow();
    await hn.sinkWhen((s) => s.last_error !== null, 'a failed delivery');
    const failing = await status();
    assert.is(failing.code, 0, failing.stderr);
    assert.match(failing.stdout, /^SINK +TYPE +STATE +PENDING +DELIVERED +FAILED +LAST_ERROR$/m);
    const [, type, state, , , , error] = hookRow(failing.stdout);
    assert.equal([type, state], ['webhook', 'failing']);
    assert.match(error!, /^.*503.* \(\d+(\.\d+)? ?(ms|s|m) ago\)$/);

    receiver.respond(() => ({ status: 200 }));
    await hn.sinkWhen((s) => s.pending === 0 && s.total_delivered > 0, 'the delivery after the outage', { timeoutMs: 20_000 });
    const recovered = await waitFor(async () => {
      const row = hookRow((await status()).stdout);
      return row[2] === 'ok' ? row : undefined;
    }, 10_000, 'the sink ok again');
    assert.match(recovered[6]!, /^past: .*503.* \(.* ago\)$/);

    const json = await status('--json');
    const view = JSON.parse(json.stdout) as { stats: { total_started: number; bytes_down: number }; sinks: ConnectorState[]; node_id: string };
    assert.is(view.stats.total_started, 1);
    assert.ok(view.stats.bytes_down > 0);
    const hook = view.sinks.find((s) => s.tag === 'hook');
    assert.ok(hook && hook.last_error && typeof hook.last_delivered_at_unix_ms === 'number');
    assert.ok(hook.last_delivered_at_unix_ms! > hook.last_error.at_unix_ms, 'delivered after the error');
  } finally {
    await stopAll(hn, origin, receiver);
  }
});

test.run();
