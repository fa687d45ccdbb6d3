import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { settlesBeforeFar } from '../support/far-bound.js';
import { startNode, type TestNode } from '../support/api-node.js';
import { loudBefore } from '../support/loud-before.js';

// A subscriber stops reading while events flow, is cut off as a slow consumer, and reads
// what it was sent only after a long pause (longer than 30 s, and than the server's
// keep-alive timeout): its stream still ends on a whole frame, the SLOW_CONSUMER one.
const BOUND = 1024 * 1024;
const EVENTS = 40_000;
const PAD = 'p'.repeat(300);
const PAUSE_MS = 35_000;
let node: TestNode;

loudBefore(test, async () => {
  node = await startNode({ streamLimits: { bufferBytes: BOUND } });
});
test.after(async () => {
  await node.stop();
});

function pausedStream(url: string): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    http.get(url, { headers: { authorization: `Bearer ${node.apiKey}` } }, (res) => {
      res.pause();
      resolve(res);
    }).once('error', reject);
  });
}

/** Everything the response delivers until it ends or its connection closes. */
function readAll(res: http.IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const done = (): void => resolve(Buffer.concat(chunks).toString('utf8'));
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.once('end', done).once('close', done).once('error', done);
    res.resume();
  });
}

test('a cut-off SSE client that reads after a long pause gets whole frames and the SLOW_CONSUMER frame last', async () => {
  const res = await pausedStream(`${node.baseUrl}/api/v1/events/stream?types=engine.warning`);
  for (let i = 0; i < EVENTS; i++) {
    node.engine.bus.publish({ event_type: 'engine.warning', payload: { code: 'spec_load', message: `${i}:${PAD}` } });
    if (i % 200 === 199) await sleep(5);
  }
  await sleep(PAUSE_MS);
  const text = await settlesBeforeFar(readAll(res), 'the stream end');
  assert.ok(text.endsWith('\n\n'), `the stream ends on a frame boundary: ...${JSON.stringify(text.slice(-80))}`);
  const frames = text.split('\n\n').filter((f) => f !== '');
  const ids = frames.slice(0, -1).map((f) => Number(/^id: (\d+)$/m.exec(f)![1]));
  assert.ok(ids.length > 0 && ids.length < EVENTS, `cut off after ${ids.length} events`);
  assert.is(frames.at(-1), `event: error\ndata: {"code":"SLOW_CONSUMER","resume_from":${ids.at(-1)}}`);
});

test.run();
