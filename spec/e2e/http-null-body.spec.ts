import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startNode, type TestNode } from './support-http.js';

// http/README.md: "Malformed query numbers or JSON: 400 BAD_REQUEST ...; a body that
// fails validation: 422 INVALID_BODY with every reason". A body of valid JSON that is no
// object (`null`, `"rule"`, `42`, `true`) fails validation, as `[]` does.

let node: TestNode;

test.before(async () => {
  node = await startNode();
});
test.after(async () => {
  await node.stop();
});

test('a JSON body that is not an object is 422 INVALID_BODY, not 400 "not valid JSON"', async () => {
  for (const body of ['null', '"rule"', '42', 'true']) {
    const res = await node.api('/api/v1/mode', { method: 'PUT', body, headers: { 'content-type': 'application/json' } });
    assert.is(res.status, 422, `${body}: ${res.text}`);
    assert.is(res.json.code, 'INVALID_BODY', body);
  }
});

test.run();
