import { test } from 'uvu';
import { coalesce } from '../../../streams/coalesce.js';
import { marbles } from './marbles.js';

test('emits one array per window with every value of the window', () => {
  const s = marbles();
  s.run(({ cold, expectObservable }) => {
    const source = cold('-a-b---c------|');
    expectObservable(source.pipe(coalesce(3, s))).toBe('----x-----y---|', { x: ['a', 'b'], y: ['c'] });
  });
});

test('the window opens with the first value, not on a fixed grid', () => {
  const s = marbles();
  s.run(({ cold, expectObservable }) => {
    expectObservable(cold('-----a------|').pipe(coalesce(3, s))).toBe('--------x---|', { x: ['a'] });
  });
});

test('emits nothing while the source is idle', () => {
  const s = marbles();
  s.run(({ cold, expectObservable }) => {
    expectObservable(cold('----------|').pipe(coalesce(3, s))).toBe('----------|');
    expectObservable(cold('-----------').pipe(coalesce(3, s))).toBe('-----------');
  });
});

test('flushes the open window when the source completes', () => {
  const s = marbles();
  s.run(({ cold, expectObservable }) => {
    expectObservable(cold('-a-b|').pipe(coalesce(10, s))).toBe('----(x|)', { x: ['a', 'b'] });
  });
});

test('flushes the open window before an error', () => {
  const s = marbles();
  s.run(({ cold, expectObservable }) => {
    expectObservable(cold('-a-#').pipe(coalesce(10, s))).toBe('---(x#)', { x: ['a'] });
  });
});

test('an unsubscribe drops the open window and cancels its timer', () => {
  const s = marbles();
  s.run(({ cold, expectObservable, expectSubscriptions }) => {
    const source = cold('-a-b---');
    expectObservable(source.pipe(coalesce(5, s)), '^--!').toBe('----');
    expectSubscriptions(source.subscriptions).toBe('^--!');
  });
});

test.run();
