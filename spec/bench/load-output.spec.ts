import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadArgs } from './load-job.js';
import { LoadOutputError, parseLoadLine } from './load-output.js';

test('parses each result line of the client, with user and system CPU added', () => {
  assert.equal(parseLoadLine('{"mode":"stream","bytes":2147483648,"seconds":0.909142,"cpu_user_us":10,"cpu_sys_us":363712}'), {
    mode: 'stream',
    bytes: 2147483648,
    seconds: 0.909142,
    cpuUs: 363722,
  });
  const rate = '{"mode":"rate","completed":18879,"failed":2,"seconds":2.001661,"latency_us":{"p50":3481,"p90":4937,"p99":7346,"max":11443},"cpu_user_us":40572,"cpu_sys_us":1185730}';
  assert.equal(parseLoadLine(rate), {
    mode: 'rate',
    completed: 18879,
    failed: 2,
    seconds: 2.001661,
    latencyUs: { p50: 3481, p90: 4937, p99: 7346, max: 11443 },
    cpuUs: 1226302,
  });
  assert.equal(parseLoadLine('{"mode":"idle","event":"held","held":500,"failed":3,"seconds":0.15,"cpu_user_us":0,"cpu_sys_us":53129}'), {
    mode: 'idle',
    event: 'held',
    held: 500,
    failed: 3,
    cpuUs: 53129,
  });
  assert.equal(parseLoadLine('{"mode":"idle","event":"done","held":500,"closed_by_origin":500,"cpu_user_us":1,"cpu_sys_us":2}'), {
    mode: 'idle',
    event: 'done',
    held: 500,
    failed: 0,
    cpuUs: 3,
  });
});

test('an error line is a result of its own', () => {
  assert.equal(parseLoadLine('{"error":"idle: 10 of 5000 tunnels opened in 120 s"}'), { mode: 'error', message: 'idle: 10 of 5000 tunnels opened in 120 s' });
});

test('refuses lines that are not JSON, miss a field or carry a negative count', () => {
  assert.throws(() => parseLoadLine('client[4] 127.0.0.1: connected'), (e: unknown) => e instanceof LoadOutputError && /not JSON/.test(e.message));
  assert.throws(() => parseLoadLine('{"mode":"stream","bytes":1,"cpu_user_us":0,"cpu_sys_us":0}'), /field seconds is undefined/);
  assert.throws(() => parseLoadLine('{"mode":"rate","completed":-1,"failed":0,"seconds":1,"latency_us":{},"cpu_user_us":0,"cpu_sys_us":0}'), /field completed is -1/);
  assert.throws(() => parseLoadLine('{"mode":"rate","completed":1,"failed":0,"seconds":1,"cpu_user_us":0,"cpu_sys_us":0}'), /latency_us is not a JSON object/);
  assert.throws(() => parseLoadLine('{"mode":"idle","event":"gone","held":1,"cpu_user_us":0,"cpu_sys_us":0}'), /idle event "gone"/);
  assert.throws(() => parseLoadLine('{"mode":"udp","cpu_user_us":0,"cpu_sys_us":0}'), /unknown mode "udp"/);
  assert.throws(() => parseLoadLine('[1]'), /the line is not a JSON object/);
});

test('each job becomes the command line weir-load.c reads', () => {
  const through = { port: 1080, proto: 'socks5', target: { host: '127.0.0.1', port: 9000 } } as const;
  const common = ['--port', '1080', '--proto', 'socks5', '--target', '127.0.0.1:9000'];
  assert.equal(loadArgs({ kind: 'stream', ...through, bytes: 1024 }), ['stream', ...common, '--bytes', '1024']);
  assert.equal(loadArgs({ kind: 'rate', ...through, concurrency: 50, ms: 3000 }), ['rate', ...common, '--concurrency', '50', '--ms', '3000']);
  assert.equal(loadArgs({ kind: 'rate', ...through, auth: 'ann:pw', concurrency: 2, ms: 10 }), [
    'rate',
    ...common,
    '--auth',
    'ann:pw',
    '--concurrency',
    '2',
    '--ms',
    '10',
  ]);
  assert.equal(loadArgs({ kind: 'idle', ...through, proto: 'http', count: 5000, concurrency: 100, holdMs: 60000 }), [
    'idle',
    '--port',
    '1080',
    '--proto',
    'http',
    '--target',
    '127.0.0.1:9000',
    '--count',
    '5000',
    '--concurrency',
    '100',
    '--hold-ms',
    '60000',
  ]);
});

test.run();
