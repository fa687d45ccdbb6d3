import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { verdictForError } from '../../../actors/webhook/delivery-verdict.js';

test("a failed attempt's error names the cause, never the client's message, which quotes the URL", async () => {
  // fetch refuses a URL with credentials and says so with the whole URL in its message.
  const refused = await fetch('http://user:pw-secret@127.0.0.1:1/hook?token=q-secret').catch((err: unknown) => err);
  assert.match(String(refused), /q-secret/);
  assert.equal(verdictForError(refused), { kind: 'retry', error: 'network error', retryAfterMs: null });

  const reset = new TypeError('fetch failed: http://127.0.0.1:1/hook?token=q-secret', { cause: Object.assign(new Error('read ECONNRESET http://127.0.0.1:1/hook?token=q-secret'), { code: 'ECONNRESET' }) });
  assert.equal(verdictForError(reset), { kind: 'retry', error: 'network error ECONNRESET', retryAfterMs: null });
});

test.run();
