import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigSource } from '../../actors/config/config-source.js';
import { applyBody } from '../../actors/control/config-apply.js';
import { ControlError } from '../../actors/control/control-error.js';
import type { ConfigProblem } from '../../actors/config/problems.js';
import { checkProperty } from '../support/fuzz.js';
import { assertProblems, SECRET, validDoc } from '../support/fuzz-config.js';
import { tempDir } from '../support/temp-dir.js';

// A config.apply body, whatever it holds, as POST /api/v1/config/apply and IPC
// config.apply hand it over: an applied config, or INVALID_BODY, or CONFIG_INVALID
// with its problems listed; never another throw, never a secret in the error.

const SPEC_RUNS = 1000;
const stateDir = tempDir('weir-fuzz-apply-');
const doc = validDoc(stateDir);
const sink = fc.oneof(
  fc.constant({ type: 'jsonl', tag: 'more', path: `${stateDir}/more.jsonl` }),
  fc.record({ type: fc.constantFrom('jsonl', 'webhook', 'redis', 'x'), tag: fc.oneof(fc.constantFrom('archive', 'more', ''), fc.string({ maxLength: 6 })), path: fc.oneof(fc.constant(`${stateDir}/s.jsonl`), fc.string({ maxLength: 12 })), events: fc.array(fc.constantFrom('*', 'flow.completed', 'nope'), { maxLength: 3 }) }, { requiredKeys: [] }),
  fc.record({ type: fc.constant('webhook'), tag: fc.constantFrom('hook', 'archive'), url: fc.oneof(fc.constant('http://127.0.0.1:8080/in'), fc.string({ maxLength: 12 })), token: fc.constantFrom(`${SECRET}-token-0123456789`, `${SECRET}`, 7) }, { requiredKeys: ['type', 'token'] }),
  fc.jsonValue({ maxDepth: 2 }),
);
const value = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(doc['route'], doc['log'], doc['event_sinks'], { path: './hook.sock', timeout_ms: 500 }),
  fc.array(sink, { maxLength: 3 }),
  fc.array(fc.oneof(fc.constantFrom('archive', 'more'), fc.jsonValue({ maxDepth: 1 })), { maxLength: 3 }),
);
const key = fc.oneof(fc.constantFrom('event_sinks', 'route', 'log', 'ipc_hook', 'upsert_sinks', 'remove_sinks', 'inbounds', 'node'), fc.string({ maxLength: 8 }));
const body = fc.oneof(fc.jsonValue(), fc.dictionary(key, value, { maxKeys: 4 }));

function problemsOf(err: ControlError): ConfigProblem[] {
  return (err.details as { problems: ConfigProblem[] }).problems;
}

test('any config.apply body applies, or is refused as INVALID_BODY or CONFIG_INVALID with its problems', async () => {
  await checkProperty(
    fc.property(body, (b) => {
      const source = new ConfigSource(null, stateDir, doc);
      let config;
      try {
        config = applyBody(source, b);
      } catch (err) {
        assert.instance(err, ControlError);
        const e = err as ControlError;
        assert.ok(e.code === 'INVALID_BODY' || e.code === 'CONFIG_INVALID', e.code);
        if (e.code === 'CONFIG_INVALID') assertProblems(problemsOf(e));
        assert.ok(e.message.length > 0);
        assert.not.ok(e.message.includes(SECRET), `the secret in: ${e.message}`);
        return;
      }
      assert.type(config.node.id, 'string');
    }),
    SPEC_RUNS,
  );
});

test.run();
