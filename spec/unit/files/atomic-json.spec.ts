import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tempDir } from '../../support/temp-dir.js';

// A power loss cannot be staged here; what makes a replace survive one can be seen: the
// system calls, traced by strace in the process that writes. Per thread (-ff) with
// timestamps, since the async writer works on libuv's pool.
const ATOMIC_JSON = fileURLToPath(new URL('../../../actors/files/atomic-json.js', import.meta.url));

interface Call {
  at: number;
  name: string;
  args: string;
  result: string;
}

function tracedWrite(call: string): { calls: Call[]; file: string } {
  const dir = tempDir();
  const file = path.join(dir, 'state', 'sequence.json');
  const prefix = path.join(dir, 'trace');
  const script = `import(${JSON.stringify(ATOMIC_JSON)}).then((m) => m.${call}(${JSON.stringify(file)}, ${call === 'writeJsonFileSync' ? '{ next_sequence: 7 }' : '"{}\\n"'}))`;
  execFileSync('strace', ['-ff', '-ttt', '-qq', '-e', 'trace=openat,fsync,fdatasync,rename,renameat,renameat2', '-o', prefix, process.execPath, '-e', script]);
  const calls: Call[] = [];
  for (const name of fs.readdirSync(dir).filter((n) => n.startsWith('trace.'))) {
    for (const line of fs.readFileSync(path.join(dir, name), 'utf8').split('\n')) {
      const m = /^(\d+\.\d+) (\w+)\((.*)\)\s+= (-?\d+)/.exec(line);
      if (m) calls.push({ at: Number(m[1]), name: m[2] as string, args: m[3] as string, result: m[4] as string });
    }
  }
  calls.sort((a, b) => a.at - b.at);
  return { calls, file };
}

/** Index of the first call after `from` that `match` accepts; -1 when none does. */
function find(calls: Call[], from: number, match: (c: Call) => boolean): number {
  for (let i = from + 1; i < calls.length; i++) if (match(calls[i] as Call)) return i;
  return -1;
}

function assertDurableReplace(call: string): void {
  const { calls, file } = tracedWrite(call);
  const dir = path.dirname(file);
  const isSync = (c: Call, fd: string): boolean => (c.name === 'fsync' || c.name === 'fdatasync') && c.args === fd;
  const openTemp = find(calls, -1, (c) => c.name === 'openat' && c.args.includes(`"${file}.`) && c.args.includes('.tmp"'));
  assert.ok(openTemp >= 0, `the temp file is opened: ${JSON.stringify(calls)}`);
  const tempFd = (calls[openTemp] as Call).result;
  const rename = find(calls, openTemp, (c) => c.name.startsWith('rename') && c.args.endsWith(`"${file}"`));
  assert.ok(rename > openTemp, 'the temp file is renamed over the file');
  const tempSync = find(calls, openTemp, (c) => isSync(c, tempFd));
  assert.ok(tempSync > openTemp && tempSync < rename, 'the temp file is synced before the rename');
  const openDir = find(calls, rename, (c) => c.name === 'openat' && c.args.includes(`"${dir}"`));
  assert.ok(openDir > rename, 'the directory is opened after the rename');
  assert.ok(find(calls, openDir, (c) => isSync(c, (calls[openDir] as Call).result)) > openDir, 'and synced, so the rename survives a power loss');
  assert.ok(fs.readFileSync(file, 'utf8').length > 0);
}

test('writeJsonFileSync syncs the new content before the rename and the directory after it', () => {
  assertDurableReplace('writeJsonFileSync');
});

test('writeFileAtomic syncs the new content before the rename and the directory after it', () => {
  assertDurableReplace('writeFileAtomic');
});

test.run();
