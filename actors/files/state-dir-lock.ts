import fs from 'node:fs';
import path from 'node:path';
import { WeirError } from '../errors/weir-error.js';

const LOCK_FILE = 'weir.pid';
/** What a weir node's process is called: `weir` once meow names it, `node` before or when embedded. */
const NODE_NAMES = new Set(['weir', 'node']);

export class StateDirInUseError extends WeirError<'STATE_DIR_IN_USE'> {
  constructor(
    readonly stateDir: string,
    readonly pid: number,
  ) {
    super('STATE_DIR_IN_USE', `state_dir ${stateDir} is in use by another weir node (pid ${pid}); give this node a state_dir of its own`);
  }
}

/**
 * Claims a node's state_dir for one running node. Two nodes on one state_dir would
 * append to one JSONL file and deliver from one outbox, and a second start that fails
 * (its port taken) would still publish its engine.stopped into the first one's sinks,
 * which a controller reads as that node stopping. The claim is `weir.pid`, created
 * exclusively; one left by a node that is gone (kill -9, a crash) is taken over.
 */
export class StateDirLock {
  private constructor(
    private readonly file: string,
    /**
     * Why the claim could not be written (a full disk, a read-only state_dir), or null.
     * The node runs all the same: it proxies without a writable state_dir too.
     */
    readonly unclaimed: string | null = null,
  ) {}

  static acquire(stateDir: string): StateDirLock {
    const file = path.join(stateDir, LOCK_FILE);
    try {
      fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
      if (create(file)) return new StateDirLock(file);
      const holder = readPid(file);
      if (holder !== null && holderRuns(holder)) throw new StateDirInUseError(stateDir, holder);
      fs.rmSync(file, { force: true });
      // Two nodes taking over the same stale claim at once: one of them creates it.
      if (create(file)) return new StateDirLock(file);
      throw new StateDirInUseError(stateDir, readPid(file) ?? -1);
    } catch (err) {
      if (err instanceof StateDirInUseError) throw err;
      return new StateDirLock(file, `${file} cannot be written (${err instanceof Error ? err.message : String(err)})`);
    }
  }

  /** Gives the state_dir up, unless another node has taken it over meanwhile. */
  release(): void {
    if (this.unclaimed === null && readPid(this.file) === process.pid) fs.rmSync(this.file, { force: true });
  }
}

/** Creates the claim; false when one exists. */
function create(file: string): boolean {
  try {
    fs.writeFileSync(file, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

function readPid(file: string): number | null {
  try {
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** Whether `pid` is a running weir node: it exists and, where /proc tells, is called as one (a pid is reused). */
function holderRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    return NODE_NAMES.has(fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim());
  } catch {
    return true;
  }
}
