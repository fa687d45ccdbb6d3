import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { reap } from '../support/child-reaper.js';
import { ofType, readJsonl } from '../support/jsonl.js';
import { e2eConfig, eventsPath } from '../support/node-config.js';
import { tempDir } from '../support/temp-dir.js';
import { WEIR_BIN } from '../support/weir-bin.js';

interface Interrupted {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  events: ReturnType<typeof readJsonl>;
}

/** Starts `weir run`, sends SIGINT after `delayMs` whatever it is doing then, and waits (at most 20 s) for its end. */
async function interruptAfter(delayMs: number): Promise<Interrupted> {
  const stateDir = tempDir();
  const configPath = path.join(stateDir, 'weir.json');
  fs.writeFileSync(configPath, JSON.stringify(e2eConfig({ stateDir, inbounds: [{ type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port: 0 }] })));
  const child = spawn(WEIR_BIN, ['run', '-c', configPath], { stdio: ['ignore', 'ignore', 'pipe'] });
  reap(child);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  const timer = setTimeout(() => child.kill('SIGINT'), delayMs);
  const guard = setTimeout(() => child.kill('SIGKILL'), delayMs + 20_000);
  const { code, signal } = await ended;
  clearTimeout(timer);
  clearTimeout(guard);
  return { code, signal, stderr, events: readJsonl(eventsPath(stateDir)) };
}

// From while Node loads weir's modules to after the node is up. On this kind of machine
// `weir run` takes 600-900 ms to start, most of it loading modules; the delays are dense
// there so that some land while the node starts (its sink open, its inbounds not yet).
const DELAYS_MS = [0, 200, 400, 500, 550, 600, 650, 700, 750, 800, 850, 900, 1000, 1500];

test('a SIGINT at any point of start-up ends weir cleanly: engine.started is always followed by engine.stopped', async () => {
  // One at a time, so each delay lands in the phase it was chosen for.
  const outcomes: Interrupted[] = [];
  for (const delay of DELAYS_MS) outcomes.push(await interruptAfter(delay));
  let startedThenStopped = 0;
  for (const [i, o] of outcomes.entries()) {
    const at = `SIGINT after ${DELAYS_MS[i]} ms (exit ${o.code}, signal ${o.signal}): ${o.stderr}`;
    assert.not.match(o.stderr, /\n\s+at /, `no stack trace: ${at}`);
    if (ofType(o.events, 'engine.started').length === 0) {
      // Before the node started it may take Node's default exit for SIGINT, or stop by itself.
      assert.ok(o.signal === 'SIGINT' || o.code === 0, at);
      continue;
    }
    startedThenStopped++;
    assert.is(o.code, 0, at);
    assert.is(o.events[0]?.event_type, 'engine.started', at);
    assert.is(o.events.at(-1)?.event_type, 'engine.stopped', at);
    assert.is(o.events.at(-1)?.payload['reason'], 'signal', at);
    assert.is(ofType(o.events, 'engine.stopped').length, 1, at);
  }
  // The longest delays reach a running node, so the spec checks the stop of a started one.
  assert.ok(startedThenStopped > 0, 'no run got as far as engine.started');
});

test.run();
