import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope } from '../../streams/contract.js';
import { ofType, readJsonl } from '../support/jsonl.js';
import { logLines } from '../support/log-lines.js';
import { startOrigin } from '../support/origin.js';
import { withTmpfs } from '../support/tmpfs.js';
import { waitFor } from '../support/wait-for.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import { HOOK_TOKEN, startHookNode, stopAll } from '../support/webhook-node.js';

// Another process fills the state dir's file system to the last block (dd until
// ENOSPC) while the node proxies: the outbox's free-space check did not see it coming
// (min_free_bytes 0), and the JSONL archive, the state files and the log file all find
// the disk full. The node proxies on, tells the full disk once per file, and every file
// is written again once the filler is deleted.

/** Log messages of the node's own files that could not be written. */
const WRITE_PROBLEMS = ['jsonl sink cannot write', 'sink records', 'principals', 'event sequences'];

test('a disk filled by another process is told once, never stops the node, and writes resume once it has room', async () => {
  const receiver = await startWebhookReceiver(HOOK_TOKEN);
  const origin = await startOrigin();
  try {
    await withTmpfs('8m', async (stateDir) => {
      const filler = path.join(stateDir, 'filler');
      const logFile = path.join(stateDir, 'weir.log');
      const hn = await startHookNode({ origin, hook: { url: receiver.url() }, stateDir, log: { file: logFile } });
      try {
        await hn.curlFlows(4);
        await hn.sinkWhen((s) => s.total_delivered === 4, 'the first flows delivered');

        const dd = spawnSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=64k'], { encoding: 'utf8' });
        assert.match(dd.stderr, /No space left on device/, 'the filler filled the disk');
        // Proxying goes on while every file of the node finds the disk full.
        await hn.curlFlows(12);
        const blocked = await hn.sinkWhen((s) => s.outbox_storage.write_blocked && s.replay_gaps === 1, 'writes blocked with a replay gap');
        assert.ok(['store_full', 'min_free_bytes'].includes(blocked.outbox_storage.write_blocked_reason ?? ''), JSON.stringify(blocked));
        // Long enough for several ticks' state-file writes to fail.
        await sleep(2500);
        await hn.curlFlows(4);

        fs.rmSync(filler);
        await hn.curlFlows(4);
        const resumed = await hn.sinkWhen((s) => !s.outbox_storage.write_blocked && s.pending === 0, 'writes to resume and the outbox to drain');
        assert.is(resumed.replay_gaps, 1, 'one episode, one gap');
        const events = (await hn.api('/events?since=0&types=flow.completed,engine.warning&limit=1000')).json.events as Envelope[];
        const warnings = events.filter((e) => e.event_type === 'engine.warning' && (e.payload as { code: string }).code === 'outbox_write_blocked');
        assert.is(warnings.length, 1, 'engine.warning once per episode');
        const last = events.filter((e) => e.event_type === 'flow.completed').slice(-4);
        await waitFor(() => last.every((e) => readJsonl(hn.events).some((a) => a.event_id === e.event_id)) || undefined, 10_000, 'the last flows in the archive');
        const acked = new Set(receiver.acknowledged().map((e) => e['event_id']));
        assert.ok(last.every((e) => acked.has(e.event_id)), 'and at the receiver');
        assert.ok(ofType(readJsonl(hn.events), 'flow.completed').length >= 8);

        assert.is(await hn.node.stop(), 0, 'the node stops cleanly');
        const lines = logLines(fs.readFileSync(logFile, 'utf8'));
        for (const msg of WRITE_PROBLEMS) {
          const told = lines.filter((l) => l['msg'] === msg && l['level'] === 40);
          assert.ok(told.length <= 1, `"${msg}" told ${told.length} times: ${JSON.stringify(told)}`);
        }
        assert.is(lines.filter((l) => l['msg'] === 'jsonl sink cannot write').length, 1, 'the archive told the full disk once');
        assert.ok(lines.some((l) => String(l['msg']).endsWith('events.jsonl is written again')), 'and the end of it');
        // The log file itself: its spell told on stderr, once each way.
        const told = hn.node.stderr().split('\n').filter((l) => l.startsWith('weir: the log ('));
        assert.equal(told.map((l) => /cannot be written|is written again/.exec(l)?.[0]), ['cannot be written', 'is written again'], told.join('\n'));
      } finally {
        await stopAll(hn, receiver);
      }
    });
  } finally {
    await origin.close();
  }
});

test.run();
