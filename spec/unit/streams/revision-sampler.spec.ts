import { test } from 'uvu';
import { sampleRevisions } from '../../../streams/revision-sampler.js';
import { change } from '../flows/fixtures.js';
import { marbles } from './marbles.js';

test('lifecycle changes pass at once, without waiting for a tick', () => {
  const v = { s: change('started', 'f1', 1), r: change('routed', 'f1', 2), c: change('completed', 'f1', 3) };
  marbles().run(({ cold, expectObservable }) => {
    expectObservable(cold('-s-r-c-|', v).pipe(sampleRevisions(cold('-')))).toBe('-s-r-c-|', v);
  });
});

test('traffic changes are held until the tick', () => {
  const v = { a: change('traffic', 'f1', 3) };
  marbles().run(({ cold, expectObservable }) => {
    expectObservable(cold('-a------', v).pipe(sampleRevisions(cold('-----t')))).toBe('-----a--', v);
  });
});

test('a tick emits only the latest change of each flow, in order of first arrival', () => {
  const v = {
    a: change('traffic', 'f1', 3),
    x: change('traffic', 'f2', 3),
    b: change('traffic', 'f1', 4),
    y: change('traffic', 'f2', 4),
  };
  marbles().run(({ cold, expectObservable }) => {
    expectObservable(cold('-a-x-b-y-----', v).pipe(sampleRevisions(cold('---------t')))).toBe('---------(by)', v);
  });
});

test('every tick emits what arrived since the previous one', () => {
  const v = { a: change('traffic', 'f1', 3), b: change('traffic', 'f1', 4) };
  marbles().run(({ cold, expectObservable }) => {
    expectObservable(cold('-a----b------', v).pipe(sampleRevisions(cold('----t----t---')))).toBe('----a----b---', v);
  });
});

test('a tick with nothing pending emits nothing', () => {
  const v = { a: change('traffic', 'f1', 3) };
  marbles().run(({ cold, expectObservable }) => {
    expectObservable(cold('-a--------', v).pipe(sampleRevisions(cold('--t--t--t-')))).toBe('--a-------', v);
  });
});

test('a flow whose revision did not move since its last emission is not emitted', () => {
  const v = {
    r: change('routed', 'f1', 3),
    a: change('traffic', 'f1', 3),
    b: change('traffic', 'f1', 4),
    c: change('traffic', 'f1', 4),
  };
  marbles().run(({ cold, expectObservable }) => {
    // a repeats the revision routed already carried; c repeats the one b carried.
    expectObservable(cold('-ra---b----c-----', v).pipe(sampleRevisions(cold('-----t----t-----t')))).toBe(
      '-r--------b------',
      v,
    );
  });
});

test('a completed flow drops its pending sample; completed carries the final numbers', () => {
  const v = { a: change('traffic', 'f1', 3), x: change('traffic', 'f2', 3), c: change('completed', 'f1', 4) };
  marbles().run(({ cold, expectObservable }) => {
    expectObservable(cold('-ax-c------', v).pipe(sampleRevisions(cold('-------t---')))).toBe('----c--x---', v);
  });
});

test('ends with the source and stops listening to the tick', () => {
  const v = { a: change('traffic', 'f1', 3) };
  marbles().run(({ cold, expectObservable, expectSubscriptions }) => {
    const tick = cold('--t--t--t');
    expectObservable(cold('-a-|', v).pipe(sampleRevisions(tick))).toBe('--a|', v);
    expectSubscriptions(tick.subscriptions).toBe('^--!');
  });
});

test('passes a source error through', () => {
  const v = { s: change('started', 'f1', 1) };
  marbles().run(({ cold, expectObservable }) => {
    expectObservable(cold('-s#', v).pipe(sampleRevisions(cold('-')))).toBe('-s#', v);
  });
});

test.run();
