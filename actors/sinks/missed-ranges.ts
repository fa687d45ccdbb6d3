import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { ReplayGap } from '../contracts/outbox.js';
import type { Sink } from '../contracts/sink.js';
import { readStateFile, writeJsonFileSync } from '../files/atomic-json.js';

/** The file name inside `node.state_dir`. */
const MISSED_FILE = 'missed-by-unstarted-sinks.json';

const fileSchema = z.record(
  z.string(),
  z.array(z.object({ from_sequence: z.number().int(), to_sequence: z.number().int(), at_unix_ms: z.number() })),
);

/**
 * Ranges of a run's events that a sink never took because it was still retrying its
 * start (RetriedStart) when the node stopped. Those events went with the run's replay
 * ring and the sink's store was not open to record the loss, so the ranges wait here,
 * per tag, until the tag next starts and records them as replay gaps. Without them
 * the loss left no trace past that run's sink_start_failed warning.
 */
export class MissedRanges {
  private readonly file: string;

  constructor(
    stateDir: string,
    /**
     * Writes where a crash leaves it what `sink` counted at its start (a JSONL sink
     * counts gaps in its connector state); false when that failed.
     */
    private readonly keep: (sink: Sink) => Promise<boolean>,
  ) {
    this.file = path.join(stateDir, MISSED_FILE);
  }

  /**
   * Starts `sink` with the ranges its tag carries, which are forgotten once it has
   * counted them where a crash leaves them: a crash in between counts them again at
   * the next start rather than never.
   */
  async start(sink: Sink, since?: number): Promise<void> {
    const carried = this.read()[sink.tag] ?? [];
    await sink.start(since, carried);
    if (carried.length > 0 && (await this.keep(sink))) this.update((all) => delete all[sink.tag]);
  }

  /**
   * A range that overlaps one the tag already carries widens it instead: the same loss
   * can be noted twice (a sink that never started, then a crash before the stop ended,
   * counts from where it stopped) and must count as one gap.
   */
  add(tag: string, range: ReplayGap): void {
    this.update((all) => {
      const ranges = (all[tag] ??= []);
      const same = ranges.find((r) => r.from_sequence <= range.to_sequence && range.from_sequence <= r.to_sequence);
      if (!same) return void ranges.push(range);
      same.from_sequence = Math.min(same.from_sequence, range.from_sequence);
      same.to_sequence = Math.max(same.to_sequence, range.to_sequence);
    });
  }

  private update(change: (all: Record<string, ReplayGap[]>) => void): void {
    const all = this.read();
    change(all);
    if (Object.keys(all).length > 0) writeJsonFileSync(this.file, all);
    else fs.rmSync(this.file, { force: true });
  }

  /** A damaged file counts as empty: the ranges it held are lost, the sinks still start. */
  private read(): Record<string, ReplayGap[]> {
    const read = readStateFile(this.file, fileSchema);
    return 'value' in read ? read.value : {};
  }

}
