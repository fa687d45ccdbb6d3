import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SCHEMA_ID, type Envelope } from '../../../streams/contract.js';
import { occurredAtOf, PublishedEvent } from '../../../streams/published-event.js';

const envelope = (payload: object): Envelope => ({
  schema_id: SCHEMA_ID,
  event_id: 'e-1',
  event_type: 'flow.completed',
  occurred_at_unix_ms: 1_764_230_400_123,
  source_id: null,
  sequence: 7,
  principal_key: null,
  labels: {},
  payload,
});

test('occurred_at_unix_ms is read from a sink body, not from a payload field of the same name', () => {
  const body = PublishedEvent.of(envelope({ occurred_at_unix_ms: 5 })).withSource('"node-a"');
  assert.is(occurredAtOf(body), 1_764_230_400_123);
  assert.is(occurredAtOf(body), (JSON.parse(body) as Envelope).occurred_at_unix_ms);
});

test('a body without the field reads as NaN', () => {
  assert.ok(Number.isNaN(occurredAtOf('{"schema_id":"x","event_id":"e","payload":{}}')));
  assert.ok(Number.isNaN(occurredAtOf('{"schema_id":"x","event_id":"e","occurred_at_unix_ms":null}')));
});

test.run();
