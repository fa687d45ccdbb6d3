import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseRequestLine } from '../../../ipc/ipc-request.js';

test('reads a subscribe with a whitelist, dropping repeats', () => {
  assert.equal(parseRequestLine('{"type":"subscribe","events":["flow.started","flow.started","stats.sampled"]}'), {
    ok: true,
    request: { kind: 'subscribe', events: ['flow.started', 'stats.sampled'] },
  });
});

test('reads a subscribe without events, or with null, as all events', () => {
  for (const line of ['{"type":"subscribe"}', '{"type":"subscribe","events":null}']) {
    assert.equal(parseRequestLine(line), { ok: true, request: { kind: 'subscribe', events: null } });
  }
});

test('reads a subscribe with an empty list, or a list holding *, as all events (the ACK then says ["*"])', () => {
  for (const line of ['{"type":"subscribe","events":[]}', '{"type":"subscribe","events":["flow.started","*"]}']) {
    assert.equal(parseRequestLine(line), { ok: true, request: { kind: 'subscribe', events: null } });
  }
});

test('keeps a string or numeric id on the request', () => {
  assert.equal(parseRequestLine('{"id":"a1","stats":{}}'), { ok: true, request: { kind: 'stats', id: 'a1' } });
  assert.equal(parseRequestLine('{"id":7,"type":"subscribe","events":["stats.sampled"]}'), {
    ok: true,
    request: { kind: 'subscribe', id: 7, events: ['stats.sampled'] },
  });
});

test('reads an operation with its fields, without op and id, as the body', () => {
  assert.equal(parseRequestLine('{"id":3,"op":"flows.close","flow_id":"f-1"}'), {
    ok: true,
    request: { kind: 'op', id: 3, op: 'flows.close', body: { flow_id: 'f-1' } },
  });
});

test('answers a line that is not JSON with BAD_REQUEST', () => {
  assert.equal(parseRequestLine('hello there'), {
    ok: false,
    error: { type: 'error', code: 'BAD_REQUEST', message: 'the line is not valid JSON' },
  });
});

test('answers JSON that is not an object with BAD_REQUEST', () => {
  for (const line of ['[1,2]', '42', '"stats"', 'null']) {
    assert.equal(parseRequestLine(line), {
      ok: false,
      error: { type: 'error', code: 'BAD_REQUEST', message: 'a request must be a JSON object' },
    });
  }
});

test('answers an unknown message type with UNSUPPORTED_OPERATION and the request id', () => {
  assert.equal(parseRequestLine('{"id":3,"type":"unsubscribe"}'), {
    ok: false,
    error: { type: 'error', id: 3, code: 'UNSUPPORTED_OPERATION', message: 'unknown message type "unsubscribe"' },
  });
});

test('answers an unknown event type in a whitelist with INVALID_BODY', () => {
  assert.equal(parseRequestLine('{"type":"subscribe","events":["flow.started","flow.exploded"]}'), {
    ok: false,
    error: { type: 'error', code: 'INVALID_BODY', message: 'unknown event type "flow.exploded"' },
  });
  assert.equal(parseRequestLine('{"type":"subscribe","events":"flow.started"}'), {
    ok: false,
    error: { type: 'error', code: 'INVALID_BODY', message: 'events must be an array of event types' },
  });
});

test('answers a stats query whose value is not an object with INVALID_BODY', () => {
  assert.equal(parseRequestLine('{"stats":true}'), {
    ok: false,
    error: { type: 'error', code: 'INVALID_BODY', message: 'stats must be an object: {"stats":{}}' },
  });
});

test('answers an object with no op, type or stats with BAD_REQUEST', () => {
  assert.equal(parseRequestLine('{"id":"x","hello":1}'), {
    ok: false,
    error: { type: 'error', id: 'x', code: 'BAD_REQUEST', message: 'a request has "op", "type":"subscribe" or "stats"' },
  });
});

test('answers an id that is neither string nor number with BAD_REQUEST', () => {
  assert.equal(parseRequestLine('{"id":{"n":1},"stats":{}}'), {
    ok: false,
    error: { type: 'error', code: 'BAD_REQUEST', message: 'id must be a string or a finite number' },
  });
});

test('answers an id JSON reads as Infinity with BAD_REQUEST: the reply could not echo it', () => {
  assert.equal(parseRequestLine('{"id":1e400,"stats":{}}'), {
    ok: false,
    error: { type: 'error', code: 'BAD_REQUEST', message: 'id must be a string or a finite number' },
  });
});

test.run();
