import { spawn } from 'node:child_process';
import { reap } from './child-reaper.js';
import { findBinary } from './find-binary.js';

/** `name{labels}` → value, from Prometheus text (labels as printed). */
export function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

/** Runs `promtool check metrics` on `text`: its exit code and what it said. */
export function promtool(text: string): Promise<{ code: number | null; output: string }> {
  const bin = findBinary('promtool');
  if (!bin) throw new Error('promtool is not installed (Debian package prometheus)');
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    reap(child);
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
    child.stdin.end(text);
  });
}
