import { execFileSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope } from '../../streams/contract.js';
import { curl } from '../support/curl.js';
import { ofType, readJsonl } from '../support/jsonl.js';
import { startOrigin } from '../support/origin.js';
import { inAnyGap } from '../support/replay-gaps.js';
import { withTmpfs } from '../support/tmpfs.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { HOOK_TOKEN, startHookNode, stopAll, type HookNode } from '../support/webhook-node.js';

// Issue 33: the state dir on a 4 MiB tmpfs shared with the JSONL archive (rotated at
// 1 MiB, two kept), a Webhook sink on the embedded outbox whose receiver answers 500,
// min_free_bytes 256 KiB, and four SOCKS5 clients looping through the node. The disk
// fills although the outbox checks its free space (the archive takes the last blocks
// between a check and a write); the node must stay up and proxying, count what it
// could not keep as replay gaps, and write again once the disk has room.
const LOAD_MS = 15_000;
const CLIENTS = 4;

/** Loops curl through the node's SOCKS5 inbound until `untilMs`; resolves with [succeeded, failed] and the first failure. */
async function curlLoop(hn: HookNode, url: string, untilMs: number): Promise<{ ok: number; failed: number; firstError: string | null }> {
  const out = { ok: 0, failed: 0, firstError: null as string | null };
  while (Date.now() < untilMs) {
    const res = await curl(['--socks5-hostname', `127.0.0.1:${hn.node.ports['socks-in']}`, '-o', '/dev/null', url], 5000);
    if (res.code === 0) out.ok++;
    else {
      out.failed++;
      out.firstError ??= `curl ${res.code}: ${res.stderr}`;
    }
  }
  return out;
}

/** Every flow.completed the node's replay ring holds, oldest first. */
async function completed(hn: HookNode): Promise<Envelope[]> {
  const all: Envelope[] = [];
  for (let since = 0; ; ) {
    const page = (await hn.api(`/events?since=${since}&types=flow.completed&limit=1000`)).json.events as Envelope[];
    const fresh = page.filter((e) => e.sequence > since);
    if (fresh.length === 0) return all;
    all.push(...fresh);
    since = fresh.at(-1)!.sequence;
  }
}

test('a full disk under load never stops the node: what it could not keep is a replay gap, and writes resume once there is room', async () => {
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  receiver.respond(() => ({ status: 500 }));
  const origin = await startOrigin();
  try {
    await withTmpfs('4m', async (stateDir) => {
      const hn = await startHookNode({
        origin,
        hook: { url: receiver.url() },
        outbox: { min_free_bytes: 256 * 1024 },
        archive: { max_bytes: 1024 * 1024, keep_files: 2 },
        stateDir,
      });
      try {
        const until = Date.now() + LOAD_MS;
        const loops = await Promise.all(Array.from({ length: CLIENTS }, () => curlLoop(hn, origin.url('/bytes/64'), until)));
        const ok = loops.reduce((n, l) => n + l.ok, 0);
        const failed = loops.reduce((n, l) => n + l.failed, 0);
        assert.is(failed, 0, `${failed} of ${ok + failed} curls failed; the first: ${loops.find((l) => l.firstError)?.firstError}\nweir's stderr: ${hn.node.stderr().slice(-2000)}`);
        const full = await hn.sink();
        assert.ok(full!.replay_gaps >= 1, `the disk filled: ${JSON.stringify(full)}`);

        receiver.respond(() => ({ status: 200 }));
        execFileSync('mount', ['-o', 'remount,size=64m', stateDir]);
        // New flows after the remount: their events must reach the archive and the receiver.
        const after = await Promise.all(Array.from({ length: 3 }, () => hn.curlFlow()));
        assert.is(after.length, 3);
        const drained = await hn.sinkWhen((s) => s.pending === 0 && !s.outbox_storage.write_blocked, 'the outbox to drain with writes flowing', { timeoutMs: 60_000 });
        const events = await completed(hn);
        assert.ok(drained.replay_gaps === (drained.gaps ?? []).length, `every gap is listed (${drained.replay_gaps} counted)`);
        const acked = new Set(receiver.acknowledged().map((e) => e['event_id'] as string));
        const lost = events.filter((e) => !acked.has(e.event_id) && !inAnyGap(e.sequence, drained.gaps ?? []));
        assert.equal(lost.map((e) => e.sequence), [], `of ${events.length} flow.completed, acknowledged or in a gap`);
        const last = events.slice(-3);
        assert.ok(last.every((e) => acked.has(e.event_id)), 'the flows after the remount reached the receiver');
        const archived = new Set(ofType(readJsonl(hn.events), 'flow.completed').map((e) => e.event_id));
        assert.ok(last.every((e) => archived.has(e.event_id)), 'and the archive');
        assert.is(await hn.node.stop(), 0, 'the node stops cleanly');
      } finally {
        await stopAll(hn, receiver);
      }
    });
  } finally {
    await origin.close();
  }
});

test.run();
