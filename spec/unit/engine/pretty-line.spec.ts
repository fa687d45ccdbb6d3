import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { prettyLine } from '../../../actors/engine/pretty-line.js';
import { logFormatOf } from '../../../cli/log-format.js';

const AT = Date.UTC(2026, 0, 2, 3, 4, 5, 67);

test('a JSON line reads as time, level, message and the other fields', () => {
  const line = JSON.stringify({ level: 40, time: AT, pid: 7, hostname: 'h', sink: 'hook', error: 'receiver answered HTTP 500', msg: 'sink hook: deliveries failing' });
  assert.is(prettyLine(`${line}\n`), '03:04:05.067 WARN  sink hook: deliveries failing sink=hook error=receiver answered HTTP 500\n');
});

test('objects are shown as JSON; an access line is its message alone', () => {
  assert.is(prettyLine(JSON.stringify({ level: 30, time: AT, inbounds: [{ port: 1 }], msg: 'engine started' })), '03:04:05.067 INFO  engine started inbounds=[{"port":1}]\n');
  assert.is(prettyLine(JSON.stringify({ level: 30, time: AT, access: { flow_id: 'f' }, msg: 'in -> a:1 via direct' })), '03:04:05.067 INFO  in -> a:1 via direct\n');
});

test('a line that is not JSON passes unchanged', () => {
  assert.is(prettyLine('not json\n'), 'not json\n');
});

test('--log-format: pretty on a terminal, JSON otherwise, and only json or pretty', () => {
  assert.is(logFormatOf(undefined, true), 'pretty');
  assert.is(logFormatOf(undefined, false), 'json');
  assert.is(logFormatOf('json', true), 'json');
  assert.is(logFormatOf('pretty', false), 'pretty');
  assert.throws(() => logFormatOf('xml', false), /--log-format must be json or pretty \(got "xml"\)/);
});

test.run();
