import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { reap } from '../support/child-reaper.js';
import { curl } from '../support/curl.js';
import { WAIT_MS } from '../support/far-bound.js';
import { e2eConfig } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { readyPorts } from '../support/ready-facts.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { WEIR_BIN } from '../support/weir-bin.js';

// The HTTP control plane holds a bounded number of connections (its stream slots and
// 128 more), as the IPC channel does: requests whose heads never end, key or not,
// cannot take the descriptors the proxy's own connections need. The descriptor limit
// is lowered to reach the point where, unbounded, the proxy stopped (curl exit 97).

const FD_LIMIT = 600;
const HELD = 700;

test('requests that never finish their headers on the control plane do not stop the proxy', async () => {
  const origin = await startOrigin();
  const stateDir = tempDir();
  const config = e2eConfig({ stateDir, inbounds: [{ type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port: 0 }] });
  const configPath = path.join(stateDir, 'weir.json');
  fs.writeFileSync(configPath, JSON.stringify(config));
  const child = spawn('sh', ['-c', `ulimit -n ${FD_LIMIT} && exec "$0" "$@"`, WEIR_BIN, 'run', '-c', configPath], { stdio: ['ignore', 'ignore', 'pipe'] });
  reap(child);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const held: net.Socket[] = [];
  try {
    const ready = await waitFor(() => readyPorts(stderr, ['socks-in']), WAIT_MS, 'the ready line');
    const controlPort = Number(new URL(ready.controlUrl).port);
    const socks = `127.0.0.1:${ready.inbounds['socks-in']}`;
    assert.is((await curl(['--socks5-hostname', socks, origin.url('/bytes/10')])).code, 0, 'the proxy works before');

    for (let i = 0; i < HELD; i++) {
      const s = net.connect(controlPort, '127.0.0.1');
      s.on('error', () => undefined);
      s.write('GET /api/v1/health HTTP/1.1\r\nHost: x\r\n');
      held.push(s);
      if (i % 50 === 0) await sleep(10);
    }
    await sleep(1500);
    const during = await curl(['--socks5-hostname', socks, origin.url('/bytes/10')], 5000);
    assert.is(during.code, 0, `a SOCKS5 client while ${HELD} unfinished control requests are held: ${during.stderr}`);
  } finally {
    for (const s of held) s.destroy();
    child.kill('SIGKILL');
    await origin.close();
  }
});

test.run();
