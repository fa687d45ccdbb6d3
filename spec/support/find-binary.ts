import fs from 'node:fs';
import path from 'node:path';

// danted lives in /usr/sbin, which a non-root PATH may lack.
const SEARCH_PATH = [...(process.env['PATH'] ?? '').split(':'), '/usr/local/sbin', '/usr/sbin', '/sbin'];

/** The executable `name` on PATH or in an sbin directory; null if there is none. */
export function findBinary(name: string): string | null {
  for (const dir of SEARCH_PATH) {
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return null;
}
