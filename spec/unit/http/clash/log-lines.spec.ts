import { lastValueFrom, of, toArray } from 'rxjs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ClashError } from '../../../../http/clash/clash-errors.js';
import { clashLevelOf, clashLevelParam, clashLogMessages, weirLevelOf } from '../../../../http/clash/log-lines.js';

const LINES = [
  '{"level":20,"time":1,"pid":2,"hostname":"h","msg":"fine detail"}',
  '{"level":30,"time":1,"pid":2,"hostname":"h","room":"http","status":404,"msg":"control request"}',
  '{"level":40,"time":1,"pid":2,"hostname":"h","msg":"look"}',
  '{"level":50,"time":1,"pid":2,"hostname":"h","msg":"broken"}',
];

const messages = (level: Parameters<typeof clashLogMessages>[0]): Promise<unknown[]> =>
  lastValueFrom(of(...LINES).pipe(clashLogMessages(level), toArray())).then((m) => m.map((t) => JSON.parse(t) as unknown));

test('log lines at or above the level, as {type, payload}: the message, then the line\'s own fields', async () => {
  assert.equal(await messages('info'), [
    { type: 'info', payload: 'control request {"room":"http","status":404}' },
    { type: 'warning', payload: 'look' },
    { type: 'error', payload: 'broken' },
  ]);
  assert.is((await messages('debug')).length, 4);
  assert.equal(await messages('error'), [{ type: 'error', payload: 'broken' }]);
  assert.equal(await messages('silent'), []);
});

test('?level= is info when absent and refused (400) when unknown; levels map both ways', () => {
  assert.is(clashLevelParam(undefined), 'info');
  assert.is(clashLevelParam('warning'), 'warning');
  assert.throws(() => clashLevelParam('loud'), (err: unknown) => err instanceof ClashError && err.status === 400);
  assert.equal(['trace', 'debug', 'info', 'warn', 'error', 'fatal'].map(clashLevelOf), ['debug', 'debug', 'info', 'warning', 'error', 'error']);
  assert.equal((['debug', 'info', 'warning', 'error', 'silent'] as const).map(weirLevelOf), ['debug', 'info', 'warn', 'error', 'fatal']);
});

test.run();
