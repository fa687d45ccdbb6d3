import fs from 'node:fs';
import path from 'node:path';

/** The selectors' explicit choices: selector tag to member tag. */
export type Selections = Record<string, string>;

export class SelectionStoreError extends Error {
  override readonly name = 'SelectionStoreError';

  constructor(
    readonly code: 'SELECTIONS_UNREADABLE' | 'SELECTIONS_UNWRITABLE',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The file name inside `node.state_dir`. */
const SELECTIONS_FILE = 'selections.json';

/**
 * Keeps selector choices across restarts as one small JSON file. Writes go to a
 * temp file that is renamed over the old one, so a crash leaves either the old or
 * the new content, never half of one.
 */
export class SelectionStore {
  readonly file: string;

  constructor(stateDir: string) {
    this.file = path.join(stateDir, SELECTIONS_FILE);
  }

  /** The saved choices; none when the file does not exist yet. */
  load(): Selections {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw new SelectionStoreError('SELECTIONS_UNREADABLE', `cannot read ${this.file}: ${errnoOf(err)}`, { cause: err });
    }
    const parsed = parseSelections(text);
    if (!parsed) throw new SelectionStoreError('SELECTIONS_UNREADABLE', `${this.file} is not a JSON object of tag strings`);
    return parsed;
  }

  save(selections: Selections): void {
    const temp = `${this.file}.${process.pid}.tmp`;
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      fs.writeFileSync(temp, `${JSON.stringify(selections, null, 2)}\n`, { mode: 0o600 });
      fs.renameSync(temp, this.file);
    } catch (err) {
      removeQuietly(temp);
      throw new SelectionStoreError('SELECTIONS_UNWRITABLE', `cannot write ${this.file}: ${errnoOf(err)}`, { cause: err });
    }
  }
}

function parseSelections(text: string): Selections | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const entries = Object.entries(value);
  return entries.every(([, member]) => typeof member === 'string') ? (Object.fromEntries(entries) as Selections) : null;
}

function removeQuietly(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch {
    // Not there (the write failed before creating it) or not removable: nothing more to do.
  }
}

function errnoOf(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
}
