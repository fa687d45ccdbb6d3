import net from 'node:net';
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { curl } from '../support/curl.js';
import { WAIT_MS } from '../support/far-bound.js';
import { checkProperty } from '../support/fuzz.js';
import { e2eConfig } from '../support/node-config.js';
import { startNode, type WeirNode } from '../support/start-node.js';
import { tempDir } from '../support/temp-dir.js';
import { loudBefore } from '../support/loud-before.js';

// Random request heads to the HTTP inbound of a real node whose every route is `block`,
// so no byte leaves it: each is answered with a 4xx or closed, never a 5xx nor a stack
// trace, and the node answers a good request after all of them.

const SPEC_RUNS = 1000;
let node: WeirNode;
let port: number;

loudBefore(test, async () => {
  const stateDir = tempDir();
  const config = e2eConfig({ stateDir, inbounds: [{ type: 'http', tag: 'http-in', listen: '127.0.0.1', port: 0 }], route: { final: 'block' } });
  config['event_sinks'] = [];
  config['flows'] = { handshake_timeout_ms: 2000 };
  node = await startNode(config);
  port = node.ports['http-in']!;
});
test.after(async () => {
  await node.stop();
});

/** Sends `head` and half-closes, as a client that has said all it will; resolves with the answer up to the node's close. */
function exchange(head: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => reject(new Error('the node neither answered nor closed')), WAIT_MS);
    const done = (): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('latin1'));
    };
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.once('close', done);
    socket.once('error', done);
    socket.end(head);
  });
}

/** Mostly well-formed, so most heads reach the inbound's own code rather than Node's parser refusal. */
const mostly = <T>(good: fc.Arbitrary<T>, any: fc.Arbitrary<T>): fc.Arbitrary<T> => fc.oneof({ arbitrary: good, weight: 6 }, { arbitrary: any, weight: 1 });
const token = mostly(fc.constantFrom('GET', 'CONNECT', 'POST', 'HEAD', 'OPTIONS', 'PRI'), fc.string({ maxLength: 12 }));
const target = mostly(
  fc.oneof(fc.webUrl().map((u) => u.replace(/^https?:/, 'http:')), fc.webAuthority({ withPort: true })),
  fc.oneof(fc.constantFrom('*', '/', 'http:///x', '[::1]:80', 'example.test:0'), fc.string({ maxLength: 80 })),
);
const version = mostly(fc.constantFrom('HTTP/1.1', 'HTTP/1.0'), fc.oneof(fc.constantFrom('HTTP/2.0', 'HTTP/1.1 extra'), fc.string({ maxLength: 10 })));
const header = fc.tuple(
  mostly(fc.constantFrom('Host', 'Content-Length', 'Transfer-Encoding', 'Proxy-Authorization', 'Upgrade', 'Connection', 'Expect', 'X-Any'), fc.string({ maxLength: 20 })),
  mostly(fc.constantFrom('chunked', '0', '5', '-1', '99999999999999999999', 'close', 'keep-alive', 'websocket', '100-continue', 'Basic Og==', 'example.test'), fc.string({ maxLength: 60 })),
);
const head = mostly(
  fc.tuple(token, target, version, fc.array(header, { maxLength: 4 }), fc.oneof(fc.constant(''), fc.string({ unit: 'binary', maxLength: 40 }))).map(([m, t, v, hs, body]) =>
    Buffer.from(`${m} ${t} ${v}\r\n${hs.map(([n, val]) => `${n}: ${val}\r\n`).join('')}\r\n${body}`, 'latin1'),
  ),
  fc.uint8Array({ maxLength: 400 }).map((b) => Buffer.from(b)),
);

test('any request head is answered with a 4xx or closed, never a 5xx', async () => {
  await checkProperty(
    fc.asyncProperty(head, async (sent) => {
      const answer = await exchange(sent);
      if (answer === '') return;
      const status = /^HTTP\/1\.[01] (\d{3}) /.exec(answer);
      assert.ok(status, `not a status line: ${JSON.stringify(answer.slice(0, 80))}`);
      assert.ok(Number(status[1]) >= 400 && Number(status[1]) < 500, answer.slice(0, 80));
      assert.not.ok(/\n\s+at /.test(answer), 'a stack trace in the answer');
    }),
    SPEC_RUNS,
  );
  const after = await curl(['-p', '-x', `http://127.0.0.1:${port}`, '-o', '/dev/null', '-w', '%{http_connect}', 'http://example.test:81/']);
  assert.is(after.body.toString(), '403', `the node still answers a CONNECT (${after.stderr})`);
});

test.run();
