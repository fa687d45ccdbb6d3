import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseHookAnswer, type HookVerdict } from '../../actors/hook/hook-messages.js';
import { checkProperty } from '../support/fuzz.js';

// An IPC hook's answer line, whatever it holds: an id and a verdict, or why it is not
// an answer; never a throw. A verdict written as the hook protocol says reads back.

const SPEC_RUNS = 5000;
const field = fc.oneof(fc.jsonValue({ maxDepth: 1 }), fc.constantFrom('allow', 'deny', 'route', '', 'direct', 1, 1.5, -0, 1e400));
const answer = fc.dictionary(fc.constantFrom('id', 'action', 'outbound', '__proto__'), field, { maxKeys: 4 }).map((a) => JSON.stringify(a));
const line = fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 200 }), fc.json(), answer);
const VERDICTS = new Set(['allow', 'deny', 'route']);

test('any line is an answer of a known verdict or an error, never a throw', async () => {
  await checkProperty(
    fc.property(line, (text) => {
      const parsed = parseHookAnswer(text);
      assert.ok(parsed.id === null || Number.isInteger(parsed.id), String(parsed.id));
      if ('error' in parsed) {
        assert.type(parsed.error, 'string');
        assert.ok(parsed.error.length > 0);
        return;
      }
      assert.ok(VERDICTS.has(parsed.verdict.action), parsed.verdict.action);
      if (parsed.verdict.action === 'route') assert.ok(parsed.verdict.outbound.length > 0);
    }),
    SPEC_RUNS,
  );
});

const verdict: fc.Arbitrary<HookVerdict> = fc.oneof(
  fc.constantFrom<HookVerdict>({ action: 'allow' }, { action: 'deny' }),
  fc.string({ minLength: 1, maxLength: 20 }).map((outbound): HookVerdict => ({ action: 'route', outbound })),
);

test('parse ∘ print: an answer line with an id and a verdict reads back to them', async () => {
  await checkProperty(
    fc.property(fc.maxSafeInteger(), verdict, (id, v) => {
      assert.equal(parseHookAnswer(JSON.stringify({ id, ...v })), { id, verdict: v });
    }),
    SPEC_RUNS,
  );
});

test.run();
