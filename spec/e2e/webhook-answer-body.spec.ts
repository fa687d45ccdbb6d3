import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startOrigin } from '../support/origin.js';
import { startHookNode, stopAll } from '../support/webhook-node.js';

/** The node's resident memory in MiB, or null once the process is gone. */
function rssMiB(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/**
 * "Any 2xx acknowledges every envelope of the request; the response body is ignored"
 * (docs/webhook-delivery.md). A receiver that answers 200 with an endless body: read
 * whole until timeout_ms, it grew the node by gigabytes and the delivery failed at the
 * timeout instead of being acknowledged.
 */
test('a 2xx with an endless response body does not grow the node’s memory: the body is ignored', async () => {
  const block = Buffer.alloc(1 << 20, 120);
  let requests = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const pump = (): void => {
        while (!res.destroyed && res.write(block));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
  });
  server.unref();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`;
  const receiver = {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  const origin = await startOrigin();
  // timeout_ms at its documented default.
  const hn = await startHookNode({ origin, hook: { url, timeout_ms: 10_000 } });
  try {
    const baseline = rssMiB(hn.node.pid)!;
    let peak = baseline;
    const sampling = setInterval(() => (peak = Math.max(peak, rssMiB(hn.node.pid) ?? peak)), 100);
    try {
      await hn.curlFlow();
      // Well before timeout_ms: the status is the answer.
      await hn.sinkWhen((s) => s.total_delivered === 1, 'the 200 acknowledged', { timeoutMs: 5000 });
      await new Promise((r) => setTimeout(r, 1000));
    } finally {
      clearInterval(sampling);
    }
    assert.ok(requests >= 1, 'the receiver was called');
    assert.ok(peak < baseline + 256, `node RSS grew from ${baseline.toFixed(0)} MiB to ${peak.toFixed(0)} MiB reading an ignored response body`);
    assert.is((await hn.sink())!.total_failed, 0);
  } finally {
    await stopAll(hn, receiver, origin);
  }
});

test.run();
