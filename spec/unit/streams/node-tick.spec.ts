import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { take } from 'rxjs';
import { nodeTick } from '../../../actors/engine/tick.js';
import { marbles } from './marbles.js';

test('ticks every period with the clock reading of the tick', () => {
  const s = marbles();
  s.run(({ expectObservable }) => {
    const tick$ = nodeTick(1000, () => s.now() + 5, () => undefined, s);
    expectObservable(tick$.pipe(take(3))).toBe('1000ms a 999ms b 999ms (c|)', { a: 1005, b: 2005, c: 3005 });
  });
});

test('beforeEmit runs once per tick, before any subscriber sees the tick', () => {
  const s = marbles();
  const log: string[] = [];
  s.run(() => {
    const tick$ = nodeTick(1000, () => s.now(), (at) => log.push(`before ${at}`), s);
    tick$.pipe(take(2)).subscribe((at) => log.push(`first ${at}`));
    tick$.pipe(take(2)).subscribe((at) => log.push(`second ${at}`));
  });
  assert.equal(log, ['before 1000', 'first 1000', 'second 1000', 'before 2000', 'first 2000', 'second 2000']);
});

test('stops the clock when the last subscriber leaves', () => {
  const s = marbles();
  let calls = 0;
  s.run(({ expectObservable }) => {
    const tick$ = nodeTick(1000, () => s.now(), () => calls++, s);
    expectObservable(tick$, '^ 2500ms !').toBe('1000ms a 999ms b', { a: 1000, b: 2000 });
  });
  assert.is(calls, 2);
});

test.run();
