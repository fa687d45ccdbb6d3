import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { curl } from '../support/curl.js';
import { e2eConfig } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startNode } from '../support/start-node.js';
import { tempDir } from '../support/temp-dir.js';

// The HTTP control plane holds a bounded number of connections (its stream slots and
// 128 more), as the IPC channel does: requests whose heads never end, key or not,
// cannot take the descriptors the proxy's own connections need. The descriptor limit
// is lowered to reach the point where, unbounded, the proxy stopped (curl exit 97).

const FD_LIMIT = 600;
const HELD = 700;

test('requests that never finish their headers on the control plane do not stop the proxy', async () => {
  const origin = await startOrigin();
  const config = e2eConfig({ stateDir: tempDir(), inbounds: [{ type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port: 0 }] });
  const node = await startNode(config, { fdLimit: FD_LIMIT });
  const held: net.Socket[] = [];
  try {
    const controlPort = Number(new URL(node.controlUrl()).port);
    const socks = `127.0.0.1:${node.ports['socks-in']}`;
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
    await node.kill9();
    await origin.close();
  }
});

test.run();
