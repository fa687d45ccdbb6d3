import fs from 'node:fs';
import path from 'node:path';
import { writeJsonFileSync } from '../files/atomic-json.js';
import { WeirError } from '../errors/weir-error.js';

/** The selectors' explicit choices: selector tag to member tag. */
export type Selections = Record<string, string>;

export class SelectionStoreError extends WeirError<'SELECTIONS_UNREADABLE' | 'SELECTIONS_UNWRITABLE'> {}

/** The file name inside `node.state_dir`. */
const SELECTIONS_FILE = 'selections.json';

/**
 * Keeps selector choices across restarts as one small JSON file, written atomically.
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
    try {
      writeJsonFileSync(this.file, selections);
    } catch (err) {
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

function errnoOf(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? (err instanceof Error ? err.message : String(err));
}
