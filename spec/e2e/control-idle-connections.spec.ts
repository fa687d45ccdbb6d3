import net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { curl } from '../support/curl.js';
import { WAIT_MS } from '../support/far-bound.js';
import { e2eConfig } from '../support/node-config.js';
import { startNode } from '../support/start-node.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

// More idle connections than the control plane holds (its 256 stream slots and 128
// more), none of which ever sends a byte, as a slowloris holds them: an operator's
// request that comes after them is still answered.
const HELD = 500;
const API_KEY = 'e2e-api-key-not-a-secret';

function connected(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.off('error', reject);
      socket.on('error', () => undefined);
      // Read, so the node's FIN shows as readableEnded.
      socket.resume();
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

test(`GET /api/v1/health is answered while ${HELD} idle connections are held to the control plane`, async () => {
  const stateDir = tempDir();
  const config = e2eConfig({ stateDir, inbounds: [{ type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port: 0 }] });
  config['control'] = { listen: '127.0.0.1:0', api_key: API_KEY };
  const node = await startNode(config);
  const control = node.controlUrl();
  const held: net.Socket[] = [];
  try {
    for (let i = 0; i < HELD; i++) held.push(await connected(Number(new URL(control).port)));
    const health = await curl(['-H', `Authorization: Bearer ${API_KEY}`, `${control}/api/v1/health`], WAIT_MS);
    assert.is(health.code, 0, health.stderr);
    assert.is(JSON.parse(health.body.toString()).status, 'ok');
    await waitFor(() => held[0]!.readableEnded, WAIT_MS, 'the node to close the oldest idle connection');
  } finally {
    for (const s of held) s.destroy();
    await node.stop();
  }
});

test.run();
