import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { emitJsonSchema } from '../../../actors/config/emit-json-schema.js';

// Compiled to dist/spec/unit/config/, four levels below the repository root.
const COMMITTED = new URL('../../../../schema/weir.schema.json', import.meta.url);

test('the committed schema/weir.schema.json equals what the schema emits', () => {
  // If this fails, regenerate: node dist/actors/config/emit-json-schema.js > schema/weir.schema.json
  assert.fixture(fs.readFileSync(COMMITTED, 'utf8'), emitJsonSchema());
});

test('secrets are a string, { env } or { file } in the JSON Schema', () => {
  const schema = JSON.parse(emitJsonSchema());
  assert.equal(
    schema.$defs.Secret.anyOf.map((s: { type: string; required?: string[] }) => s.required ?? s.type),
    ['string', ['env'], ['file']],
  );
  assert.is(schema.properties.control.properties.api_key.$ref, '#/$defs/Secret');
});

test('the JSON Schema shows defaults and forbids unknown keys', () => {
  const schema = JSON.parse(emitJsonSchema());
  assert.is(schema.additionalProperties, false);
  assert.is(schema.properties.flows.properties.idle_timeout_s.default, 300);
  assert.equal(schema.required, ['control', 'outbounds']);
});

test.run();
