import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope } from '../../../streams/contract.js';
import { acceptsType, filterTypes, typeFilter, typeFilterFromQuery, wantsFlowEvents } from '../../../streams/type-filter.js';
import { marbles } from './marbles.js';

type Typed = Pick<Envelope, 'event_type'>;

test('a list of types keeps exactly those types', () => {
  const f = typeFilter(['flow.started', 'flow.completed']);
  assert.equal(f, new Set(['flow.started', 'flow.completed']));
  assert.ok(acceptsType(f, 'flow.completed'));
  assert.not.ok(acceptsType(f, 'flow.updated'));
  assert.not.ok(acceptsType(f, 'stats.sampled'));
});

test('a list with *, an empty list, null and undefined all mean every event', () => {
  for (const input of [['*'], ['flow.started', '*'], [], null, undefined]) {
    const f = typeFilter(input);
    assert.is(f, null, JSON.stringify(input));
    assert.ok(acceptsType(f, 'engine.started'));
    assert.ok(acceptsType(f, 'flow.updated'));
  }
});

test('the query form splits on commas, trims, and drops empty parts', () => {
  assert.equal(typeFilterFromQuery('flow.started,flow.completed'), new Set(['flow.started', 'flow.completed']));
  assert.equal(typeFilterFromQuery(' flow.started , ,flow.completed,'), new Set(['flow.started', 'flow.completed']));
});

test('the query form accepts a repeated parameter', () => {
  assert.equal(typeFilterFromQuery(['flow.started', 'stats.sampled,flow.routed']), new Set(['flow.started', 'stats.sampled', 'flow.routed']));
});

test('the query form means every event when absent, empty, * or not text', () => {
  for (const value of [undefined, null, '', ',', '*', 'flow.started,*', [], 42, { types: 'x' }]) {
    assert.is(typeFilterFromQuery(value), null, JSON.stringify(value));
  }
  assert.equal(typeFilterFromQuery(['flow.started', 42]), new Set(['flow.started']));
});

test('a subscription wants flow events when all pass or when any flow type is listed', () => {
  assert.ok(wantsFlowEvents(null));
  assert.ok(wantsFlowEvents(typeFilter(['flow.completed'])));
  assert.ok(wantsFlowEvents(typeFilter(['stats.sampled', 'flow.updated'])));
  assert.ok(wantsFlowEvents(typeFilter(['flow.snapshot'])));
  assert.not.ok(wantsFlowEvents(typeFilter(['engine.started', 'stats.sampled'])));
});

test('filterTypes passes listed types in order and keeps completion', () => {
  const values: Record<string, Typed> = {
    s: { event_type: 'flow.started' },
    u: { event_type: 'flow.updated' },
    c: { event_type: 'flow.completed' },
    t: { event_type: 'stats.sampled' },
  };
  marbles().run(({ cold, expectObservable }) => {
    const source = cold('-s-u-t-c-|', values);
    expectObservable(source.pipe(filterTypes(typeFilter(['flow.started', 'flow.completed'])))).toBe('-s-----c-|', values);
    expectObservable(source.pipe(filterTypes(typeFilter(['*'])))).toBe('-s-u-t-c-|', values);
    expectObservable(source.pipe(filterTypes(typeFilter([])))).toBe('-s-u-t-c-|', values);
    expectObservable(source.pipe(filterTypes(typeFilterFromQuery('stats.sampled')))).toBe('-----t---|', values);
  });
});

test.run();
