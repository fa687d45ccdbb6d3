import { EMPTY, of, Subject } from 'rxjs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mergeInners } from '../../../streams/merge-inners.js';
import { marbles } from './marbles.js';

test('merges the inners as they emit, and completes after the source and every inner', () => {
  marbles().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
    const a = cold('-a---a|');
    const b = cold('--b-b|');
    const source = hot('-x-y--|', { x: a, y: b });
    expectObservable(source.pipe(mergeInners((inner) => inner))).toBe('--a--bab|');
    expectSubscriptions(a.subscriptions).toBe('-^-----!');
    expectSubscriptions(b.subscriptions).toBe('---^----!');
  });
});

test('stays open while an inner is open after the source completed', () => {
  marbles().run(({ cold, expectObservable }) => {
    expectObservable(cold('x|', { x: cold('---a|') }).pipe(mergeInners((inner) => inner))).toBe('---a|');
  });
});

test('passes an inner error on and ends the others', () => {
  marbles().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
    const quiet = cold('------a|');
    const failing = cold('--#');
    expectObservable(hot('-x-y', { x: quiet, y: failing }).pipe(mergeInners((inner) => inner))).toBe('-----#');
    expectSubscriptions(quiet.subscriptions).toBe('-^---!');
  });
});

test('an inner that ends while it is subscribed to is not kept: the merge can complete', () => {
  const values: number[] = [];
  let completed = false;
  of(of(1, 2), EMPTY, of(3))
    .pipe(mergeInners((inner) => inner))
    .subscribe({ next: (v) => values.push(v), complete: () => (completed = true) });
  assert.equal([values, completed], [[1, 2, 3], true]);
});

test('unsubscribing ends every open inner', () => {
  const opened = new Subject<Subject<number>>();
  const inners = [new Subject<number>(), new Subject<number>(), new Subject<number>()];
  const sub = opened.pipe(mergeInners((inner) => inner)).subscribe();
  for (const inner of inners) opened.next(inner);
  inners[1]!.complete();
  assert.equal(inners.map((i) => i.observed), [true, false, true]);
  sub.unsubscribe();
  assert.equal([opened.observed, ...inners.map((i) => i.observed)], [false, false, false, false]);
});

test.run();
