import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { curl, CURL_TIMED_OUT } from '../support/curl.js';
import { WAIT_MS } from '../support/far-bound.js';
import { E2E_API_KEY, e2eConfig } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startNode } from '../support/start-node.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

// Under a descriptor limit of 1,000 the inbounds hold at most (1,000 - 768) / 2 client
// connections together; the ones over it are closed at once, so as many silent clients
// as the node has descriptors leave the control plane its own.
const FD_LIMIT = 1000;
/** (1,000 - 768) / 2, written out: the spec holds the node to the figure, not to its own formula. */
const LIMIT = 116;
const HELD = FD_LIMIT;

/** A TCP connection that sends nothing, and whether the node closed it. */
function silentConnection(port: number): { socket: net.Socket; closed: () => boolean } {
  const socket = net.connect(port, '127.0.0.1');
  let closed = false;
  socket.on('error', () => undefined);
  socket.on('close', () => (closed = true));
  return { socket, closed: () => closed };
}

test('proxy connections over the descriptor budget are closed at once; the control plane still answers', async () => {
  const origin = await startOrigin();
  const config = e2eConfig({ stateDir: tempDir(), inbounds: [{ type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port: 0 }] });
  // Silent clients are held for the whole spec, not timed out for a missing handshake.
  config['flows'] = { handshake_timeout_ms: 120_000 };
  const node = await startNode(config, { fdLimit: FD_LIMIT });
  const output = (): string => node.stdout() + node.stderr();
  const held: ReturnType<typeof silentConnection>[] = [];
  try {
    const socksPort = node.ports['socks-in']!;
    for (let i = 0; i < HELD; i++) {
      held.push(silentConnection(socksPort));
      if (i % 50 === 0) await sleep(10);
    }
    await waitFor(() => held.filter((c) => c.closed()).length >= HELD - LIMIT || null, WAIT_MS, 'the connections over the budget closed');
    await sleep(500);
    assert.is(held.filter((c) => c.closed()).length, HELD - LIMIT, `${LIMIT} held, the rest closed`);
    assert.ok(held.slice(0, LIMIT).every((c) => !c.closed()), 'the first ones are the ones held');

    const health = await curl(['-o', '/dev/null', '-w', '%{http_code}', '-H', `Authorization: Bearer ${E2E_API_KEY}`, `${node.controlUrl()}/api/v1/health`]);
    assert.is(health.body.toString(), '200', `the control plane answers while the inbounds are full: ${health.stderr}`);
    const refusedThrough = await curl(['--socks5-hostname', `127.0.0.1:${socksPort}`, origin.url('/bytes/10')], 5000);
    // Closed at once: refused by the proxy, not left to curl's 5 s timeout.
    assert.ok(![0, CURL_TIMED_OUT].includes(refusedThrough.code ?? 0), `a proxy request over the budget is refused at once: curl ${refusedThrough.code}`);
    assert.is(output().split('proxy connections full').length - 1, 1, `one log line for the episode:\n${output()}`);

    for (const c of held.slice(0, 10)) c.socket.destroy();
    await sleep(300);
    const through = await curl(['--socks5-hostname', `127.0.0.1:${socksPort}`, origin.url('/bytes/10')], 5000);
    assert.is(through.code, 0, `a freed place serves a proxy request again: ${through.stderr}`);
  } finally {
    for (const c of held) c.socket.destroy();
    await node.kill9();
    await origin.close();
  }
});

test.run();
