import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startNode, type TestNode } from './support-http.js';

// An unknown type in `types` is refused (400) also when the list holds `*`, as IPC
// subscribe refuses ["*", "bogus"]: a typo such as `types=*,flow.complete` is not
// taken as "every event".

let node: TestNode;

test.before(async () => {
  node = await startNode();
});
test.after(async () => {
  await node.stop();
});

test('GET /events refuses an unknown type beside *, as it does alone', async () => {
  for (const query of ['types=*,flow.nope', 'types=flow.nope,*', 'types=*&types=flow.nope']) {
    const res = await node.api(`/api/v1/events?${query}`);
    assert.is(res.status, 400, query);
    assert.is(res.json.code, 'BAD_REQUEST', query);
    assert.is(res.json.detail, 'unknown event type "flow.nope"', query);
  }
});

test('the SSE stream refuses an unknown type beside * before it starts', async () => {
  const ac = new AbortController();
  const res = await fetch(`${node.baseUrl}/api/v1/events/stream?types=*,flow.nope`, {
    headers: { authorization: `Bearer ${node.apiKey}` },
    signal: ac.signal,
  });
  ac.abort();
  assert.is(res.status, 400);
});

test.run();
