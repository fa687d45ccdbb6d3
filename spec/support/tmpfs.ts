import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { tempDir } from './temp-dir.js';

/**
 * Runs `body` on a fresh temp dir mounted as a tmpfs of `size` (`mount -o size=…`, so
 * root only): a small disk a spec can fill. Unmounted and removed after, however `body` ended.
 */
export async function withTmpfs<T>(size: string, body: (dir: string) => Promise<T>): Promise<T> {
  const dir = tempDir('weir-tmpfs-');
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  try {
    return await body(dir);
  } finally {
    execFileSync('umount', [dir]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
