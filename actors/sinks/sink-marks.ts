import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { Sink } from '../contracts/sink.js';
import { readStateFile, writeFileAtomic, writeJsonFileSync } from '../files/atomic-json.js';
import { messageOf, WriteSpell } from '../files/write-spell.js';

/** The file name inside `node.state_dir`. */
const MARKS_FILE = 'sink-marks.json';

const fileSchema = z.record(z.string(), z.number().int());

/** Per sink tag, the sequence through which it had kept every event it takes (Sink.keptThrough). */
export type Marks = Record<string, number>;

/** Every sink's Sink.keptThrough, by tag, with the bus at `lastSequence`. */
export function keptMarks(sinks: readonly Sink[], lastSequence: number): Marks {
  return Object.fromEntries(sinks.map((s) => [s.tag, s.keptThrough(lastSequence)]));
}

/**
 * What a running node's sinks have kept, on disk: written at start and then each tick
 * while it changes, removed at a clean stop. An event reaches a sink's file or outbox
 * some milliseconds after it is published, and a kill -9 (or a crash, or the OOM
 * killer) in between lost it with nothing recorded: the process that would have
 * counted the gap was gone. A file left at the next start says the run before did
 * not stop cleanly, and what each sink had kept: the sequences past that, up to where
 * the new run begins, are what it cannot vouch for, and are counted as one replay gap.
 * Some of them may have been kept after all (they are delivered as usual); the
 * crashed run's last sequence cannot be known, so the gap ends where the new run begins.
 */
export class SinkMarks {
  private readonly file: string;
  private saved = '';
  private writing: Promise<void> | null = null;
  private cleared = false;
  /** Set while sinks are swapped: ticks then leave the file as `holding` wrote it. */
  private held = false;
  /** Failed writes are told once per spell. */
  private readonly spell: WriteSpell;

  constructor(
    stateDir: string,
    /** Told once when the file cannot be written: after a crash the sinks' losses then go unrecorded. */
    private readonly onProblem: (problem: string) => void,
    /** Told once when it can be written again. */
    onRecovered: (message: string) => void = () => undefined,
  ) {
    this.file = path.join(stateDir, MARKS_FILE);
    this.spell = new WriteSpell(onProblem, onRecovered);
  }

  /** The marks a run left without a clean stop, or null after a clean one (or none at all). */
  left(): Marks | null {
    const read = readStateFile(this.file, fileSchema);
    if ('value' in read) return read.value;
    if ('problem' in read) this.onProblem(`${read.problem}; a crash of the run before is not counted in the sinks' replay_gaps`);
    return null;
  }

  /**
   * Runs a swap of sinks with `before` written at once and kept while it runs (an old
   * sink that stopped would report the bus's last sequence, its replacement not yet
   * caught up), then `after()` written at once, however the swap ended.
   */
  async holding<T>(before: Marks, swap: () => Promise<T>, after: () => Marks): Promise<T> {
    this.held = true;
    // A tick's write under way holds older marks (no added tag, a replaced one's old
    // mark): it lands first, so `before` is not overwritten by it.
    await this.writing;
    this.saveNow(before);
    try {
      return await swap();
    } finally {
      this.held = false;
      this.saveNow(after());
    }
  }

  /** Written at once: at start, before the first event is published, so a crash from then on is seen. */
  saveNow(marks: Marks): void {
    try {
      writeJsonFileSync(this.file, marks);
      this.written(JSON.stringify(marks));
    } catch (err) {
      this.fail(err);
    }
  }

  /**
   * Each tick: written when changed, one write at a time (a tick that finds one under
   * way leaves it to the next). Resolves when the write ended; never rejects.
   */
  save(marks: Marks): Promise<void> {
    const text = JSON.stringify(marks);
    if (this.cleared || this.held || this.writing || text === this.saved) return Promise.resolve();
    this.writing = writeFileAtomic(this.file, `${text}\n`).then(
      () => {
        this.written(text);
        this.writing = null;
      },
      (err: unknown) => {
        this.fail(err);
        this.writing = null;
      },
    );
    return this.writing;
  }

  /** At a clean stop, once the sinks have stopped: a write under way is waited for, so it cannot bring the file back. */
  async clear(): Promise<void> {
    this.cleared = true;
    await this.writing;
    try {
      fs.rmSync(this.file, { force: true });
    } catch (err) {
      this.onProblem(`${this.file} cannot be removed (${err instanceof Error ? err.message : String(err)}); the next start counts a replay gap for a clean stop`);
    }
  }

  private written(text: string): void {
    this.saved = text;
    this.spell.succeeded(`${this.file} is written again`);
  }

  private fail(err: unknown): void {
    this.spell.failed(`${this.file} cannot be written (${messageOf(err)}); a crash would not be counted in the sinks' replay_gaps`);
  }
}
