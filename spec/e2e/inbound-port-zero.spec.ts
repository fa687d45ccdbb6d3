import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { curl } from '../support/curl.js';
import { WAIT_MS } from '../support/far-bound.js';
import { logLines } from '../support/log-lines.js';
import { e2eConfig } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startNode, type WeirNode } from '../support/start-node.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';

const API_KEY = 'e2e-api-key-not-a-secret';

interface Applied {
  changed: boolean;
  restart_required: string[];
}

async function runtimePorts(node: WeirNode): Promise<[string, number][]> {
  const res = await fetch(`${node.controlUrl()}/api/v1/runtime`, { headers: { authorization: `Bearer ${API_KEY}` } });
  const body = (await res.json()) as { inbounds: { tag: string; listen: { host: string; port: number } }[] };
  return body.inbounds.map((i) => [i.tag, i.listen.port]);
}

/** The origin's body through each inbound: both serve on the ports they report. */
async function bodiesThrough(node: WeirNode, url: string): Promise<string[]> {
  const socks = await curl(['--socks5-hostname', `127.0.0.1:${node.ports['socks-in']}`, url]);
  const http = await curl(['--proxy', `http://127.0.0.1:${node.ports['http-in']}`, url]);
  return [socks.body.toString(), http.body.toString()];
}

test('inbounds on port 0 listen on the ports the kernel gave, the ready line and GET /runtime name them, and a reload keeps them', async () => {
  const origin = await startOrigin();
  const stateDir = tempDir();
  const node = await startNode(
    e2eConfig({
      stateDir,
      inbounds: [
        { type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port: 0 },
        { type: 'http', tag: 'http-in', listen: '127.0.0.1', port: 0 },
      ],
    }),
  );
  try {
    const { 'socks-in': socksPort, 'http-in': httpPort } = node.ports;
    assert.ok(socksPort! > 0 && httpPort! > 0 && socksPort !== httpPort, JSON.stringify(node.ports));
    assert.equal(await runtimePorts(node), [['socks-in', socksPort], ['http-in', httpPort]]);
    const url = origin.url('/bytes/5');
    assert.equal(await bodiesThrough(node, url), ['xxxxx', 'xxxxx']);

    // The config file still asks for port 0: nothing changed, so the listeners stay.
    const res = await fetch(`${node.controlUrl()}/api/v1/config/reload`, { method: 'POST', headers: { authorization: `Bearer ${API_KEY}` } });
    assert.is(res.status, 200);
    const applied = (await res.json()) as Applied;
    assert.equal([applied.changed, applied.restart_required], [false, []]);
    process.kill(node.pid, 'SIGHUP');
    const reloaded = (): Record<string, unknown> | undefined => logLines(node.stdout()).find((l) => String(l['msg']).startsWith('configuration reloaded'));
    assert.equal(((await waitFor(reloaded, WAIT_MS, 'the SIGHUP reload'))['applied'] as Applied).restart_required, []);
    assert.equal(await runtimePorts(node), [['socks-in', socksPort], ['http-in', httpPort]]);
    assert.equal(await bodiesThrough(node, url), ['xxxxx', 'xxxxx']);
  } finally {
    assert.is(await node.stop(), 0);
    await origin.close();
  }
});

test.run();
