import path from 'node:path';
import { z } from 'zod';
import { readStateFile, writeFileAtomic, writeJsonFileSync } from '../files/atomic-json.js';
import { messageOf, WriteSpell } from '../files/write-spell.js';
import type { KeptPrincipals, PrincipalLedger } from './principal-ledger.js';

/** The file name inside `node.state_dir`. */
const PRINCIPALS_FILE = 'principals.json';

/** Ms between two writes of the file at most (5 s): a crash loses at most the counts of this long. */
export const PRINCIPALS_SAVE_MS = 5000;

const count = z.number().int().min(0);
const keptSchema: z.ZodType<KeptPrincipals> = z.object({
  reset_at_unix_ms: count,
  principals: z.array(
    z.object({
      principal_key: z.string().min(1).nullable(),
      since_reset: z.object({ bytes_up: count, bytes_down: count, flows_opened: count, flows_completed: count, flows_failed: count }),
    }),
  ),
});

/**
 * Keeps a PrincipalLedger's since_reset windows across restarts: written atomically
 * when they changed, at most every PRINCIPALS_SAVE_MS while the node runs, and once more
 * at a clean stop after the last flow completed.
 */
export class PrincipalStore {
  readonly file: string;
  private savedVersion = 0;
  private savedAt = 0;
  /** The write under way, if any: a later write waits for it, so an older content never lands last. */
  private pending: Promise<void> | null = null;
  /** Failed writes are told once per spell, not every 5 s. */
  private readonly spell: WriteSpell;

  constructor(
    stateDir: string,
    /** Told when the file cannot be read or written; the node runs on. */
    private readonly onProblem: (problem: string) => void,
    /** Told once when it can be written again. */
    onRecovered: (message: string) => void = () => undefined,
  ) {
    this.file = path.join(stateDir, PRINCIPALS_FILE);
    this.spell = new WriteSpell(onProblem, onRecovered);
  }

  /** The kept windows, or null for none (no file yet, or one that cannot be used: then counting starts over). */
  load(): KeptPrincipals | null {
    const read = readStateFile(this.file, keptSchema);
    if ('value' in read) return read.value;
    if ('problem' in read) this.onProblem(`${read.problem}; the principals' counters start over`);
    return null;
  }

  /** Each tick: writes the ledger when it changed and the last write is old enough. */
  tick(ledger: PrincipalLedger, now: number): void {
    if (this.pending || ledger.version === this.savedVersion || now - this.savedAt < PRINCIPALS_SAVE_MS) return;
    this.savedAt = now;
    const version = ledger.version;
    this.pending = writeFileAtomic(this.file, `${JSON.stringify(ledger.kept(), null, 2)}\n`)
      .then(
        () => this.saved(version),
        (err: unknown) => this.failed(err),
      )
      .finally(() => (this.pending = null));
  }

  /** At a clean stop, or after a reset: written now, after a write under way. */
  async saveNow(ledger: PrincipalLedger): Promise<void> {
    await this.pending;
    const version = ledger.version;
    try {
      writeJsonFileSync(this.file, ledger.kept());
      this.saved(version);
    } catch (err) {
      this.failed(err);
    }
  }

  private saved(version: number): void {
    this.savedVersion = version;
    this.spell.succeeded(`${this.file} is written again`);
  }

  private failed(err: unknown): void {
    this.spell.failed(`${this.file} cannot be written (${messageOf(err)})`);
  }
}
