import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { reap } from '../support/child-reaper.js';
import { WAIT_MS } from '../support/far-bound.js';
import { freePort } from '../support/free-port.js';
import { accepts, hasExited, waitListening } from '../support/listening.js';
import { runCommand } from '../support/run-command.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

/** The checkout: dist/spec/e2e is three levels below it. */
const CHECKOUT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** The built-in default's listeners, as the README gives them. */
const PROXY_PORT = 7890;
const CONTROL_PORT = 9090;
/** The origin's port in the README; the spec's origin takes a free one instead. */
const README_ORIGIN_PORT = '8000';
/** Proxy variables of the environment would send the README's curls elsewhere. */
const PROXY_ENV = /^(all|http|https|no|ftp|socks)_proxy$/i;

/** The commands of the README's quick start (its `sh` block), each without its comment. */
function quickStartCommands(): string[] {
  const readme = fs.readFileSync(path.join(CHECKOUT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Quick start'));
  const block = /```sh\n([\s\S]*?)```/.exec(section);
  assert.ok(block, 'README.md has a quick start with an sh block');
  return block[1]!
    .split('\n')
    .map((line) => line.replace(/\s+#\s.*$/, '').trim())
    .filter((line) => line !== '');
}

function spawnLine(line: string, env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const child = spawn('sh', ['-c', `exec ${line}`], { cwd: CHECKOUT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  reap(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return { child, output: () => out };
}

async function stop(child: ChildProcess): Promise<number | null> {
  if (hasExited(child)) return child.exitCode;
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  const code = await closed;
  clearTimeout(timer);
  return code;
}

test("README.md's quick start works on the built-in default, command by command", async () => {
  for (const port of [PROXY_PORT, CONTROL_PORT]) {
    assert.not.ok(await accepts(port), `127.0.0.1:${port} is in use: the quick start needs it free (stop what listens there and run this spec again)`);
  }
  const stateDir = path.join(tempDir('weir-quick-start-'), 'state');
  const originPort = String(await freePort());
  const env: Record<string, string> = {
    ...Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !PROXY_ENV.test(e[0]))),
    WEIR_STATE_DIR: stateDir,
  };
  // What the README's reader has in front of them: the checkout's ./state moved by
  // WEIR_STATE_DIR, the origin on a free port; bin/weir is the checkout's.
  const adapt = (line: string): string =>
    line.replace(new RegExp(`\\b${README_ORIGIN_PORT}\\b`, 'g'), originPort).replace(/(^|\s|\()state\//g, `$1${stateDir}/`);

  const node = spawnLine('bin/weir run', env);
  const background: ChildProcess[] = [];
  try {
    const ready = `weir: ready: proxy mixed-in 127.0.0.1:${PROXY_PORT} (mixed); control http://127.0.0.1:${CONTROL_PORT}/api/v1; API key in ${stateDir}/api_key`;
    await waitFor(() => node.output().includes(ready) || hasExited(node.child), 30_000, `the ready line\n${node.output()}`);
    assert.ok(node.output().includes(ready), `the node printed its ready line:\n${node.output()}`);

    const commands = quickStartCommands();
    assert.is(commands.length, 6, commands.join('\n'));
    for (const line of commands.map(adapt)) {
      if (line.startsWith('python3 -m http.server')) {
        assert.ok(line.endsWith('&'), line);
        const origin = spawnLine(line.slice(0, -1).trim(), env);
        background.push(origin.child);
        assert.is(await waitListening(origin.child, Number(originPort), 10_000), 'listening', `${line}\n${origin.output()}`);
        continue;
      }
      const run = (): ReturnType<typeof runCommand> => runCommand('sh', ['-c', line], { cwd: CHECKOUT, env, timeoutMs: 15_000 });
      // The archive takes the second flow's events a moment after its curl ended (on a busy
      // machine, after its fsync): `tail` is run again until they are there, as a reader would.
      const res = line.startsWith('tail -n 3 ')
        ? await waitFor(async () => {
            const out = await run();
            return out.stdout.includes('"flow.completed"') && out.stdout.trim().split('\n').length === 3 ? out : undefined;
          }, WAIT_MS, `${line} shows a flow's lifecycle`).catch(() => run())
        : await run();
      const shown = `${line}\nexit ${res.code}\n${res.stdout}${res.stderr}`;
      assert.is(res.code, 0, shown);
      if (line.startsWith('curl --socks5-hostname') || line.startsWith('curl -x')) {
        assert.match(res.stdout, /<title>Directory listing for \/<\/title>/, shown);
      } else if (line.startsWith('tail -n 3 ')) {
        const events = res.stdout.trim().split('\n').map((l) => JSON.parse(l) as { schema_id: string; event_type: string });
        assert.equal(events.map((e) => e.event_type), ['flow.started', 'flow.routed', 'flow.completed'], shown);
        assert.ok(events.every((e) => e.schema_id === 'node.event.v1'), shown);
      } else if (line === 'bin/weir status') {
        assert.match(res.stdout, new RegExp(`^inbounds\\s+mixed-in \\(mixed\\) 127\\.0\\.0\\.1:${PROXY_PORT}$`, 'm'), shown);
        assert.match(res.stdout, /^flows\s+0 active, 2 started$/m, shown);
        assert.match(res.stdout, /^outcomes\s+2 completed, 0 failed, 0 blocked$/m, shown);
      } else if (line.includes('/api/v1/flows')) {
        assert.equal(JSON.parse(res.stdout), { flows: [] }, shown);
      } else {
        assert.unreachable(`a quick start command this spec does not check: ${line}`);
      }
    }
    assert.is(await stop(node.child), 0, node.output());
  } finally {
    await stop(node.child);
    for (const child of background) await stop(child);
  }
});

test.run();
