import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { replyJson } from '../../ipc/ipc-messages.js';
import { parseRequestLine } from '../../ipc/ipc-request.js';
import { checkProperty } from '../support/fuzz.js';

// An IPC request line, whatever it holds: a request, or an error reply with a stable
// code that goes back as one JSON line; never a throw.

const SPEC_RUNS = 5000;
const CODES = new Set(['BAD_REQUEST', 'INVALID_BODY', 'UNSUPPORTED_OPERATION']);
const field = fc.oneof(fc.jsonValue(), fc.constantFrom('subscribe', 'stats', '*', 'flow.completed'));
const message = fc.dictionary(fc.constantFrom('op', 'type', 'id', 'events', 'stats', 'tag', 'mode'), field, { maxKeys: 5 }).map((m) => JSON.stringify(m));
// JSON.parse reads 1e400 as Infinity: an id no reply could echo.
const line = fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 200 }), fc.json(), message, fc.constant('{"op":"stats","id":1e400}'));

test('any line parses to a request or an error reply of a stable code, sent back as one line', async () => {
  await checkProperty(
    fc.property(line, (text) => {
      const parsed = parseRequestLine(text);
      if (parsed.ok) return;
      assert.ok(CODES.has(parsed.error.code), parsed.error.code);
      const reply = replyJson(parsed.error);
      assert.not.ok(reply.includes('\n'), 'the reply is one line');
      assert.equal(JSON.parse(reply), parsed.error);
    }),
    SPEC_RUNS,
  );
});

test.run();
