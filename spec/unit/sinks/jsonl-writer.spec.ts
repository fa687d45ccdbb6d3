import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RotatingFile } from '../../../actors/sinks/jsonl-rotation.js';
import { JsonlWriter, JsonlWriterError, type JsonlWriterOptions } from '../../../actors/sinks/jsonl-writer.js';
import { rejectionOf } from '../../support/rejection.js';

interface Fixture {
  dir: string;
  file: string;
}

async function withDir(run: (fx: Fixture) => Promise<void>): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weir-jsonl-'));
  try {
    await run({ dir, file: path.join(dir, 'state', 'events.jsonl') });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function writer(file: string, overrides: Partial<JsonlWriterOptions> = {}): JsonlWriter {
  return new JsonlWriter({ path: file, maxBytes: 1_000_000, keepFiles: 3, fsyncIntervalMs: 60_000, ...overrides });
}

/** 24 characters, so 25 bytes with its newline: four lines fill a 100-byte file. */
function line(n: number): string {
  return JSON.stringify({ n: String(n).padStart(16, '0') });
}

function readLines(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  assert.ok(text.endsWith('\n'), `${file} ends with a newline`);
  return text.slice(0, -1).split('\n');
}

function range(from: number, to: number): string[] {
  return Array.from({ length: to - from }, (_, i) => line(from + i));
}

test('writes lines in append order, one JSON object per line, visible after flush', async () => {
  await withDir(async ({ file }) => {
    const w = writer(file);
    await w.open();
    for (let i = 0; i < 5; i += 1) w.append(line(i));
    await w.flush();
    assert.equal(readLines(file), range(0, 5));
    assert.equal(JSON.parse(readLines(file)[3] ?? ''), { n: '0000000000000003' });
    assert.equal(w.stats, { linesWritten: 5, bytesWritten: 125, rotations: 0, dropped: 0, pending: 0, lastError: null });
    await w.close();
  });
});

test('creates the parent directory with mode 0700 and the file with mode 0600', async () => {
  await withDir(async ({ file }) => {
    const w = writer(file);
    await w.open();
    await w.close();
    assert.is(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
    assert.is(fs.statSync(file).mode & 0o777, 0o600);
  });
});

test('writes appended lines to the file without waiting for flush or fsync', async () => {
  await withDir(async ({ file }) => {
    const w = writer(file, { fsyncIntervalMs: 3_600_000 });
    await w.open();
    w.append(line(1));
    const deadline = Date.now() + 2_000;
    while (fs.readFileSync(file, 'utf8') === '' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    assert.is(fs.readFileSync(file, 'utf8'), `${line(1)}\n`);
    await w.close();
  });
});

test('writes the lines appended in one tick with one write call', async () => {
  await withDir(async ({ file }) => {
    const original = RotatingFile.prototype.append;
    const writes: number[] = [];
    RotatingFile.prototype.append = function (this: RotatingFile, data: Buffer) {
      writes.push(data.length);
      return original.call(this, data);
    };
    try {
      const w = writer(file);
      await w.open();
      for (let i = 0; i < 100; i += 1) w.append(line(i));
      await w.flush();
      assert.equal(writes, [2_500]);
      await w.close();
    } finally {
      RotatingFile.prototype.append = original;
    }
  });
});

test('rotates at maxBytes without splitting a line, newest rotated file is path.1', async () => {
  await withDir(async ({ file }) => {
    const w = writer(file, { maxBytes: 100, keepFiles: 5 });
    await w.open();
    for (let i = 0; i < 10; i += 1) w.append(line(i));
    await w.flush();
    assert.equal(readLines(`${file}.2`), range(0, 4));
    assert.equal(readLines(`${file}.1`), range(4, 8));
    assert.equal(readLines(file), range(8, 10));
    assert.is(fs.existsSync(`${file}.3`), false);
    assert.is(w.stats.rotations, 2);
    assert.is(w.stats.linesWritten, 10);
    await w.close();
  });
});

test('rotates the same way when lines arrive in separate batches', async () => {
  await withDir(async ({ file }) => {
    const w = writer(file, { maxBytes: 100, keepFiles: 5 });
    await w.open();
    for (let i = 0; i < 6; i += 1) {
      w.append(line(i));
      await w.flush();
    }
    assert.equal(readLines(`${file}.1`), range(0, 4));
    assert.equal(readLines(file), range(4, 6));
    assert.is(w.stats.rotations, 1);
    await w.close();
  });
});

test('writes a line larger than maxBytes whole into a fresh file', async () => {
  await withDir(async ({ file }) => {
    const big = JSON.stringify({ blob: 'x'.repeat(300) });
    const w = writer(file, { maxBytes: 100, keepFiles: 5 });
    await w.open();
    w.append(line(0));
    w.append(big);
    w.append(line(1));
    await w.flush();
    assert.equal(readLines(`${file}.2`), [line(0)]);
    assert.equal(readLines(`${file}.1`), [big]);
    assert.equal(readLines(file), [line(1)]);
    await w.close();
  });
});

test('keeps only keepFiles rotated files and deletes older ones', async () => {
  await withDir(async ({ file }) => {
    const w = writer(file, { maxBytes: 100, keepFiles: 2 });
    await w.open();
    for (let i = 0; i < 20; i += 1) w.append(line(i));
    await w.flush();
    assert.equal(readLines(`${file}.2`), range(8, 12));
    assert.equal(readLines(`${file}.1`), range(12, 16));
    assert.equal(readLines(file), range(16, 20));
    assert.is(fs.existsSync(`${file}.3`), false);
    assert.is(w.stats.rotations, 4);
    await w.close();
  });
});

test('with keepFiles 0 rotation deletes the full file and keeps no rotated one', async () => {
  await withDir(async ({ file }) => {
    const w = writer(file, { maxBytes: 100, keepFiles: 0 });
    await w.open();
    for (let i = 0; i < 6; i += 1) w.append(line(i));
    await w.flush();
    assert.equal(readLines(file), range(4, 6));
    assert.is(fs.existsSync(`${file}.1`), false);
    assert.is(w.stats.rotations, 1);
    await w.close();
  });
});

test('a writer reopened on an existing file appends and rotates at maxBytes counting what is there', async () => {
  await withDir(async ({ file }) => {
    const first = writer(file, { maxBytes: 100 });
    await first.open();
    for (let i = 0; i < 3; i += 1) first.append(line(i));
    await first.close();

    const second = writer(file, { maxBytes: 100 });
    await second.open();
    second.append(line(3));
    second.append(line(4));
    await second.flush();
    assert.equal(readLines(`${file}.1`), range(0, 4));
    assert.equal(readLines(file), [line(4)]);
    assert.is(second.stats.rotations, 1);
    await second.close();
  });
});

test('records the error when its directory is removed, keeps the lines, and recovers once it is back', async () => {
  await withDir(async ({ file }) => {
    const w = writer(file);
    await w.open();
    w.append(line(0));
    await w.flush();

    fs.rmSync(path.dirname(file), { recursive: true });
    w.append(line(1));
    const err = await rejectionOf(w.flush());
    assert.instance(err, JsonlWriterError);
    assert.is((err as JsonlWriterError).code, 'JSONL_FLUSH_FAILED');
    assert.match(w.stats.lastError?.message ?? '', /ENOENT/);
    assert.is(w.stats.pending, 1);

    fs.mkdirSync(path.dirname(file));
    w.append(line(2));
    await w.flush();
    assert.equal(readLines(file), range(1, 3));
    assert.is(w.stats.pending, 0);
    assert.is(w.stats.linesWritten, 3);
    await w.close();
  });
});

test('reopens the path when the file is moved away under it', async () => {
  await withDir(async ({ file }) => {
    const w = writer(file);
    await w.open();
    w.append(line(0));
    await w.flush();
    fs.renameSync(file, `${file}.old`);
    w.append(line(1));
    await w.flush();
    assert.equal(readLines(`${file}.old`), [line(0)]);
    assert.equal(readLines(file), [line(1)]);
    assert.is(w.stats.lastError, null);
    await w.close();
  });
});

test('open rejects with JSONL_OPEN_FAILED when the directory cannot be created', async () => {
  await withDir(async ({ dir }) => {
    fs.writeFileSync(path.join(dir, 'state'), 'not a directory');
    const w = writer(path.join(dir, 'state', 'events.jsonl'));
    const err = await rejectionOf(w.open());
    assert.instance(err, JsonlWriterError);
    assert.is((err as JsonlWriterError).code, 'JSONL_OPEN_FAILED');
    assert.match(w.stats.lastError?.message ?? '', /EEXIST|ENOTDIR/);
    await w.close();
  });
});

test('writes 50k lines appended in one loop completely and in order', async () => {
  await withDir(async ({ file }) => {
    const w = writer(file, { maxBytes: 200_000, keepFiles: 20 });
    await w.open();
    for (let i = 0; i < 50_000; i += 1) w.append(line(i));
    await w.flush();
    const rotated = Array.from({ length: w.stats.rotations }, (_, i) => readLines(`${file}.${w.stats.rotations - i}`));
    const all = rotated.flat().concat(readLines(file));
    assert.is(all.length, 50_000);
    assert.equal(all, range(0, 50_000));
    assert.is(w.stats.rotations, 6);
    assert.is(w.stats.bytesWritten, 50_000 * 25);
    await w.close();
  });
});

test('drops lines beyond maxPendingLines instead of queueing them', async () => {
  await withDir(async ({ file }) => {
    const w = writer(file, { maxPendingLines: 3 });
    await w.open();
    for (let i = 0; i < 5; i += 1) w.append(line(i));
    assert.is(w.stats.dropped, 2);
    await w.flush();
    assert.equal(readLines(file), range(0, 3));
    await w.close();
  });
});

test('concurrent flushes each see the lines appended before them on disk', async () => {
  await withDir(async ({ file }) => {
    const w = writer(file);
    await w.open();
    w.append(line(0));
    const first = w.flush().then(() => readLines(file).length);
    w.append(line(1));
    const second = w.flush().then(() => readLines(file).length);
    const third = w.flush().then(() => readLines(file).length);
    const seen = await Promise.all([first, second, third]);
    assert.ok((seen[0] ?? 0) >= 1);
    assert.equal(seen.slice(1), [2, 2]);
    assert.equal(readLines(file), range(0, 2));
    await w.close();
  });
});

test('after close, appends are dropped and the file is left as it was', async () => {
  await withDir(async ({ file }) => {
    const w = writer(file);
    await w.open();
    w.append(line(0));
    await w.close();
    w.append(line(1));
    assert.is(w.stats.dropped, 1);
    await new Promise((r) => setImmediate(r));
    assert.equal(readLines(file), [line(0)]);
  });
});

test('close writes the lines still queued', async () => {
  await withDir(async ({ file }) => {
    const w = writer(file);
    await w.open();
    w.append(line(0));
    w.append(line(1));
    await w.close();
    assert.equal(readLines(file), range(0, 2));
    assert.is(w.stats.dropped, 0);
  });
});

test.run();
