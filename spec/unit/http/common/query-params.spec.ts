import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ControlError } from '../../../../actors/control/control-error.js';
import { integerParam, sequenceParam, streamParams, typesParam } from '../../../../http/common/query-params.js';

function refusal(fn: () => unknown): ControlError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ControlError) return err;
    throw err;
  }
  throw new Error('expected a ControlError');
}

test('sequenceParam reads a non-negative integer and leaves an absent one undefined', () => {
  assert.is(sequenceParam('since', '0'), 0);
  assert.is(sequenceParam('since', '12345'), 12345);
  assert.is(sequenceParam('since', undefined), undefined);
});

test('sequenceParam refuses signs, fractions, words, blanks and repeats with BAD_REQUEST', () => {
  for (const bad of ['-1', '1.5', 'abc', '', ' 1', '1e3', '99999999999999999', ['1', '2']]) {
    const err = refusal(() => sequenceParam('since', bad));
    assert.is(err.code, 'BAD_REQUEST', String(bad));
  }
  assert.is(refusal(() => sequenceParam('since', 'x')).message, 'since must be an integer from 0 to 9007199254740991');
});

test('integerParam holds its range', () => {
  assert.is(integerParam('limit', '10000', { min: 1, max: 10000 }), 10000);
  assert.is(refusal(() => integerParam('limit', '0', { min: 1, max: 10000 })).message, 'limit must be an integer from 1 to 10000');
  assert.is(refusal(() => integerParam('limit', '10001', { min: 1, max: 10000 })).code, 'BAD_REQUEST');
});

test('typesParam reads comma lists and repeats, and treats `*`, empty and absent as all', () => {
  assert.equal(typesParam('flow.started,flow.completed'), ['flow.started', 'flow.completed']);
  assert.equal(typesParam(['stats.sampled', 'policy.selected']), ['stats.sampled', 'policy.selected']);
  assert.is(typesParam('*'), null);
  assert.is(typesParam('flow.started,*'), null);
  assert.is(typesParam(''), null);
  assert.is(typesParam(undefined), null);
});

test('typesParam refuses an unknown event type by name', () => {
  const err = refusal(() => typesParam('flow.started,flow.bogus'));
  assert.is(err.code, 'BAD_REQUEST');
  assert.is(err.message, 'unknown event type "flow.bogus"');
});

test('streamParams: the since query wins over Last-Event-ID', () => {
  assert.equal(streamParams({ types: undefined, since: '7', lastEventId: '9' }), { types: null, since: 7 });
  assert.equal(streamParams({ types: undefined, since: undefined, lastEventId: '9' }), { types: null, since: 9 });
  assert.equal(streamParams({ types: 'stats.sampled', since: undefined, lastEventId: undefined }), {
    types: ['stats.sampled'],
    since: null,
  });
});

test('streamParams ignores an empty Last-Event-ID and refuses a malformed one', () => {
  assert.equal(streamParams({ types: undefined, since: undefined, lastEventId: '' }), { types: null, since: null });
  assert.is(refusal(() => streamParams({ types: undefined, since: undefined, lastEventId: 'abc' })).message,
    'Last-Event-ID must be an integer from 0 to 9007199254740991');
});

test.run();
