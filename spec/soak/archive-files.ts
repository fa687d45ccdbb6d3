import fs from 'node:fs';
import { readArchive, type ArchiveRead } from './soak-oracle.js';

/**
 * The archive `file` with its rotated files (`file.N` … `file.1`, oldest first), read
 * one file at a time: a rotation never splits a line, so a torn line is torn in its file.
 */
export function readArchiveFiles(file: string): ArchiveRead & { readonly files: number } {
  const rotated: string[] = [];
  for (let n = 1; fs.existsSync(`${file}.${n}`); n += 1) rotated.unshift(`${file}.${n}`);
  const reads = [...rotated, file].map((f) => readArchive(fs.readFileSync(f, 'utf8')));
  return {
    files: reads.length,
    lines: reads.reduce((sum, r) => sum + r.lines, 0),
    completed: reads.flatMap((r) => r.completed),
    torn: reads.reduce((sum, r) => sum + r.torn, 0),
  };
}
