import { readFileSync } from 'node:fs';

/** The soft "Max open files" of a /proc/<pid>/limits text; null when it has none or says unlimited. */
export function parseOpenFilesLimit(limits: string): number | null {
  const soft = /^Max open files\s+(\S+)/m.exec(limits)?.[1];
  const n = Number(soft);
  return soft !== undefined && Number.isSafeInteger(n) && n > 0 ? n : null;
}

/**
 * This process's open-descriptor limit (Node raises the soft limit to the hard one as it
 * starts); null where /proc does not tell it.
 */
export function openFilesLimit(): number | null {
  try {
    return parseOpenFilesLimit(readFileSync('/proc/self/limits', 'utf8'));
  } catch {
    return null;
  }
}
