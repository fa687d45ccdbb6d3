import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const made: string[] = [];
let hooked = false;

/** A fresh directory under the OS temp dir, removed when the test process exits. */
export function tempDir(prefix = 'weir-e2e-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  if (!hooked) {
    hooked = true;
    process.on('exit', () => {
      for (const d of made) fs.rmSync(d, { recursive: true, force: true });
    });
  }
  return dir;
}
