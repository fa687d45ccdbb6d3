import path from 'node:path';
import { z } from 'zod';
import { readStateFile, writeFileAtomic, writeJsonFileSync } from './atomic-json.js';
import { messageOf, WriteSpell } from './write-spell.js';

/** The file name inside `node.state_dir`. */
const SEQUENCE_FILE = 'sequence.json';
/** Sequences a run may publish past what the file says before it writes again. */
export const SEQUENCE_BLOCK = 1_000_000;

const fileSchema = z.strictObject({ next_sequence: z.number().int().min(1).max(2 ** 52) });

/**
 * Keeps the envelope's `sequence` increasing across engine starts. An SSE client
 * resumes with the last sequence it saw; were sequences to start over at 1, one that
 * reconnects after a restart once the new run has passed its number would skip the
 * new run's first events (engine.started, flow.completed among them), and the replay
 * gaps of different runs would name the same numbers.
 *
 * The file holds the first sequence the next run may use. A run reserves a block past
 * it before publishing and the next block when half is used (checked each tick), so
 * after a kill -9 the next run starts above anything published; a clean stop writes
 * the exact next sequence, so a restart goes on without a jump. A state_dir that cannot
 * be read or written leaves sequences to start over at 1, as `problem` says.
 */
/** Told when a later block cannot be reserved, and when it can be again. */
interface ReservationTell {
  onProblem?: (problem: string) => void;
  onRecovered?: (message: string) => void;
}

export class SequenceReservation {
  /** Why sequences may start over at the next start; null while they are kept. */
  problem: string | null = null;
  /**
   * Set when the file was not past what an earlier run is known to have published
   * (lost, damaged, or behind because its writes failed), saying where this run began
   * instead; null when the file was used.
   */
  behind: string | null = null;
  /** The highest sequence this run may publish without a crash reusing it. */
  private reservedThrough: number;
  private extending = false;
  /** Set once the first write failed: no more are tried, and sequences may start over. */
  private broken = false;
  /** A later block that could not be reserved (a full disk) is tried again each tick, and told once per spell. */
  private readonly spell: WriteSpell;

  private constructor(
    private readonly file: string,
    readonly first: number,
    private readonly block: number,
    tell: ReservationTell,
  ) {
    this.reservedThrough = first - 1;
    this.spell = new WriteSpell(tell.onProblem ?? (() => undefined), tell.onRecovered ?? (() => undefined));
  }

  /**
   * `published` is the highest sequence an earlier run is known to have published: the
   * last mark a sink kept in a run that did not stop cleanly (SinkMarks), 0 when there
   * is none. A file that is not past it cannot say where that run ended, and starting
   * where it says (1, when it is lost) would publish that run's sequences again: an SSE
   * client resuming with one would skip this run's first events, and the crash's replay
   * gap would name no range. The run then begins a block past it, the margin that run's
   * own reservation kept: what it published past its sinks' last marks (the events of
   * its last tick, unless every sink lagged that far) stays below.
   */
  static open(stateDir: string, opts: { published?: number; block?: number } & ReservationTell = {}): SequenceReservation {
    const block = opts.block ?? SEQUENCE_BLOCK;
    const published = opts.published ?? 0;
    const file = path.join(stateDir, SEQUENCE_FILE);
    const read = readStateFile(file, fileSchema);
    const stored = 'value' in read ? read.value.next_sequence : 1;
    const behind = stored <= published;
    const reservation = new SequenceReservation(file, behind ? published + 1 + block : stored, block, opts);
    const unusable = 'problem' in read ? read.problem : null;
    if (behind) {
      const was = 'missing' in read ? `${file} was missing` : (unusable ?? `${file} said ${stored}`);
      reservation.behind = `${was}, not past sequence ${published} that a sink had kept, so this run begins a block past it, at ${reservation.first}`;
    } else if (unusable) {
      reservation.problem = `${unusable}; sequences started over at 1`;
    }
    try {
      writeJsonFileSync(file, { next_sequence: reservation.first + block });
      reservation.reservedThrough += block;
    } catch (err) {
      reservation.fail(err);
    }
    return reservation;
  }

  /** Reserves the next block once `last` (the last sequence published) is past half of this one. */
  keepAhead(last: number): void {
    if (this.extending || this.broken || last <= this.reservedThrough - this.block / 2) return;
    this.extending = true;
    const through = this.reservedThrough + this.block;
    writeFileAtomic(this.file, `${JSON.stringify({ next_sequence: through + 1 })}\n`).then(
      () => {
        this.reservedThrough = through;
        this.extending = false;
        this.spell.succeeded(`${this.file} is written again`);
      },
      (err: unknown) => {
        this.extending = false;
        this.spell.failed(`${this.file} cannot be written (${messageOf(err)}); the next block of sequences is reserved once it can be`);
      },
    );
  }

  /** At a clean stop: the next run goes on right after `last`. */
  close(last: number): void {
    if (this.broken) return;
    try {
      writeJsonFileSync(this.file, { next_sequence: last + 1 });
    } catch (err) {
      this.fail(err);
    }
  }

  private fail(err: unknown): void {
    this.broken = true;
    this.problem ??= `${this.file} cannot be written (${err instanceof Error ? err.message : String(err)})`;
  }
}
