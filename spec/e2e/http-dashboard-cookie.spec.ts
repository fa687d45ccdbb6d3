import http from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startNode, type TestNode } from '../support/api-node.js';
import { loudBefore } from '../support/loud-before.js';

let node: TestNode;

loudBefore(test, async () => {
  node = await startNode();
});
test.after(async () => {
  await node.stop();
});

/** A GET with a raw header value: node:http sends a string's characters as latin1 bytes, as a client may. */
function getWithCookie(path: string, cookie: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${node.baseUrl}${path}`, { headers: { cookie } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
  });
}

// The session cookie is 43 base64url characters. One of 43 non-ASCII characters has the
// same length in characters but not in UTF-8 bytes: the comparison threw, and any
// visitor, without a key, got a 500 and made the node log an error.
test('a dashboard cookie of non-ASCII bytes is refused with 401, not a 500 and an error log', async () => {
  const res = await getWithCookie('/dashboard', `weir_dashboard=${'\u00e9'.repeat(43)}`);
  assert.is(res.status, 401);
  assert.is(JSON.parse(res.body).code, 'UNAUTHORIZED');
  assert.not.match(await node.logText(), /control request failed/);
});

test.run();
