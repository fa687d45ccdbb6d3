import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope } from '../../streams/contract.js';
import { startOrigin } from '../support/origin.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { HOOK_TOKEN, startHookNode, stopAll, type HookNode, type SinkView } from '../support/webhook-node.js';

// The state dir on a 4 MiB tmpfs that the spec fills to the last byte right after an
// append, while the free space the node last read still looks ample: the next appends
// fail their journal write with ENOSPC or are refused once the node reads the disk again.
// Proxying goes on, writes pause, the miss is a replay gap with a warning, and writes
// resume once there is room.
const MIN_FREE_BYTES = 256 * 1024;

/** Writes `file` until the file system is full: the free space is then 0. */
function fillDisk(file: string): void {
  const chunk = Buffer.alloc(64 * 1024, 1);
  const fd = fs.openSync(file, 'w');
  try {
    for (let size = chunk.length; size > 0; size = size > 1 ? size >> 1 : 0) {
      try {
        for (;;) fs.writeSync(fd, chunk, 0, size);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

/** The bus sequences of the node's flow.completed so far, oldest first. */
async function completedSequences(hn: HookNode): Promise<number[]> {
  const events = (await hn.api('/events?since=0&types=flow.completed')).json.events as Envelope[];
  return events.map((e) => e.sequence);
}

test('a full disk under the embedded outbox pauses its writes as a replay gap, and proxying goes on', async () => {
  const stateDir = tempDir('weir-disk-full-');
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', stateDir]);
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  await receiver.stop();
  const origin = await startOrigin();
  const filler = path.join(stateDir, 'filler');
  try {
    const hn = await startHookNode({ origin, hook: { url: receiver.url() }, outbox: { min_free_bytes: MIN_FREE_BYTES }, stateDir });
    try {
      await hn.curlFlow();
      await hn.sinkWhen((s) => s.pending === 1, 'the first flow.completed in the outbox');
      fillDisk(filler);
      // curlFlow asserts each curl succeeds: the node proxies on with the disk full.
      for (let i = 0; i < 3; i++) await hn.curlFlow();
      // A curl may end a moment before the node has published its flow.completed.
      const [, ...onFullDisk] = await waitFor(async () => {
        const sequences = await completedSequences(hn);
        return sequences.length === 4 ? sequences : undefined;
      }, 10_000, 'the four flow.completed');
      assert.is(onFullDisk.length, 3);
      // Each event of the full disk is kept or inside the gap, never both, never neither.
      // Which are kept is the disk's doing: a tmpfs may take a write into a page the file already has,
      // and files the node gave up writing free their blocks.
      const inGap = (s: SinkView): number => onFullDisk.filter((seq) => (s.gaps ?? []).some((g) => g.from_sequence <= seq && seq <= g.to_sequence)).length;
      const settled = await hn.sinkWhen((s) => s.replay_gaps === 1 && s.pending - 1 + inGap(s) === onFullDisk.length, 'each event of the full disk kept or in the replay gap');
      assert.ok(inGap(settled) >= 1, 'the full disk refused writes');
      const warnings = (await hn.api('/events?since=0&types=engine.warning')).json.events as Envelope[];
      const blockedWarnings = warnings.filter((e) => (e.payload as { code: string }).code === 'outbox_write_blocked');
      assert.is(blockedWarnings.length, 1, JSON.stringify(warnings));
      assert.match((blockedWarnings[0]!.payload as { message: string }).message, /sink "hook": .*min_free_bytes/);

      fs.rmSync(filler);
      await hn.curlFlow();
      const resumed = await hn
        .sinkWhen((s) => !s.outbox_storage.write_blocked && s.pending === settled.pending + 1, 'writes to resume once there is room')
        .catch(async (err: unknown) => {
          throw new Error(`${(err as Error).message}: sink ${JSON.stringify(await hn.sink().catch(() => null))}\nweir's log (tail): ${hn.node.stdout().slice(-3000)}`);
        });
      assert.is(resumed.replay_gaps, 1);
      assert.is(await hn.node.stop(), 0, 'the node stops cleanly');
    } finally {
      await stopAll(hn, receiver);
    }
  } finally {
    await origin.close();
    execFileSync('umount', [stateDir]);
  }
});

test.run();
