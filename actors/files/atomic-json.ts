import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';

/*
 * State files are replaced through a private temp file renamed over them, so a crash
 * leaves the old content or the new, never half of one or an empty file; they may hold
 * secrets, hence 0600 in a 0700 directory. The temp file is synced before the rename
 * and the directory after it: without the first, a power loss can leave the new name
 * on blocks never written; without the second, the rename itself can be lost, and a
 * sequence block reserved by the file (SequenceReservation) would be handed out again
 * by the next run.
 */

/** A temp file beside `file`, unique to this process and call. */
function tempBeside(file: string): string {
  return `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
}

/** Writes `value` as indented JSON, for files an operator may read. */
export function writeJsonFileSync(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = tempBeside(file);
  try {
    const fd = fs.openSync(temp, 'w', 0o600);
    try {
      fs.writeFileSync(fd, `${JSON.stringify(value, null, 2)}\n`);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, file);
  } catch (err) {
    fs.rmSync(temp, { force: true });
    throw err;
  }
  const dir = fs.openSync(path.dirname(file), 'r');
  try {
    fs.fsyncSync(dir);
  } finally {
    fs.closeSync(dir);
  }
}

/** Writes `text` without blocking the event loop, synced to disk before the rename. */
export async function writeFileAtomic(file: string, text: string): Promise<void> {
  await fs.promises.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = tempBeside(file);
  try {
    const handle = await fs.promises.open(temp, 'w', 0o600);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.promises.rename(temp, file);
  } catch (err) {
    await fs.promises.rm(temp, { force: true });
    throw err;
  }
  const dir = await fs.promises.open(path.dirname(file), 'r');
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

/** A state file as read: its value, or that there is none yet, or why it cannot be used. */
export type StateFileRead<T> = { value: T } | { missing: true } | { problem: string };

/** Reads a JSON state file and checks it with `schema`; never throws. */
export function readStateFile<T>(file: string, schema: z.ZodType<T>): StateFileRead<T> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? { missing: true } : { problem: `${file} cannot be read (${code ?? String(err)})` };
  }
  try {
    return { value: schema.parse(JSON.parse(text)) };
  } catch {
    return { problem: `${file} is damaged` };
  }
}
