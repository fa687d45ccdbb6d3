import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigSource } from '../../../actors/config/config-source.js';
import { ControlError } from '../../../actors/control/control-error.js';
import { applyBody } from '../../../actors/control/config-apply.js';
import { tempDir } from '../../support/temp-dir.js';

/** A node's config source; `more`: other sections of its document. */
function source(eventSinks: unknown[] = [], stateDir = tempDir(), more: Record<string, unknown> = {}): ConfigSource {
  return new ConfigSource(null, stateDir, {
    node: { id: 'apply-node', state_dir: stateDir },
    control: { listen: '127.0.0.1:0', api_key: 'apply-key-0123456789' },
    outbounds: [{ type: 'direct', tag: 'direct' }],
    route: { final: 'direct' },
    event_sinks: eventSinks,
    ...more,
  });
}

test('config.apply takes the IPC hook, a hot section, with the socket path the node runs', () => {
  const hook = path.join(tempDir(), 'hook.sock');
  const config = applyBody(source([], tempDir(), { ipc_hook: { path: hook } }), { ipc_hook: { path: hook, timeout_ms: 50 } });
  assert.equal(config.ipc_hook, { path: hook, timeout_ms: 50 });
});

test('config.apply refuses an IPC hook socket path the node does not run: the node would connect wherever the request says', () => {
  const problem = { path: 'ipc_hook.path', message: "config.apply sets the IPC hook's timeout and keeps its socket path; the path is set in the config file" };
  assert.equal(refusal(source(), { ipc_hook: { path: '/run/hook.sock', timeout_ms: 50 } }), { problems: [problem] }, 'a node without a hook');
  const running = path.join(tempDir(), 'hook.sock');
  const src = source([], tempDir(), { ipc_hook: { path: running } });
  assert.equal(refusal(src, { ipc_hook: { path: path.join(tempDir(), 'other.sock') } }), { problems: [problem] }, 'a node whose hook is elsewhere');
  assert.equal(applyBody(src, { ipc_hook: { path: running, timeout_ms: 70 } }).ipc_hook, { path: running, timeout_ms: 70 });
});

test('config.apply refuses sections that change only on restart, naming them', () => {
  try {
    applyBody(source(), { inbounds: [], route: { final: 'direct' } });
    assert.unreachable('applied');
  } catch (err) {
    assert.instance(err, ControlError);
    assert.equal([(err as ControlError).code, (err as ControlError).message], [
      'INVALID_BODY',
      'not hot-reloadable: inbounds (config.apply takes event_sinks, route, log, ipc_hook, upsert_sinks, remove_sinks; other sections need a restart)',
    ]);
  }
});

test('a problem of an upserted sink is named by its place in upsert_sinks, not in the merged list', () => {
  const stateDir = tempDir();
  const jsonl = (tag: string): unknown => ({ type: 'jsonl', tag, path: path.join(stateDir, `${tag}.jsonl`) });
  const webhook = { type: 'webhook', tag: 'bill', url: 'http://127.0.0.1:8/ingest', token: 'tok', events: ['flow.nosuch'] };
  try {
    applyBody(source([jsonl('a'), jsonl('b')], stateDir), { upsert_sinks: [jsonl('c'), webhook], remove_sinks: ['a'] });
    assert.unreachable('applied');
  } catch (err) {
    assert.instance(err, ControlError);
    const problems = ((err as ControlError).details as { problems: { path: string }[] }).problems;
    assert.equal(problems.map((p) => p.path), ['upsert_sinks[1].events[0]']);
  }
});

test('a tag upserted twice in one request is named at its second place, against its first', () => {
  const hook = (url: string): unknown => ({ type: 'webhook', tag: 'a', url, token: 'tok' });
  try {
    applyBody(source(), { upsert_sinks: [hook('http://127.0.0.1:8/one'), { type: 'jsonl', tag: 'b', path: './b.jsonl' }, hook('http://127.0.0.1:8/two')] });
    assert.unreachable('applied');
  } catch (err) {
    assert.instance(err, ControlError);
    assert.is((err as ControlError).code, 'CONFIG_INVALID');
    assert.equal((err as ControlError).details, { problems: [{ path: 'upsert_sinks[2].tag', message: 'duplicate tag "a" (first used at upsert_sinks[0])' }] });
  }
});

/** The problems config.apply refused `body` with. */
function refusal(src: ConfigSource, body: unknown): unknown {
  try {
    applyBody(src, body);
  } catch (err) {
    assert.instance(err, ControlError);
    assert.is((err as ControlError).code, 'CONFIG_INVALID');
    return (err as ControlError).details;
  }
  return assert.unreachable('applied');
}

const INLINE_ONLY = "config.apply takes a secret inline: { env } and { file } name the node's own environment and files (set those in the config file)";

test("a secret in a request names no variable or file of the node's: whether it exists is not told either", () => {
  const hook = (token: unknown): unknown => ({ type: 'webhook', tag: 'bill', url: 'http://127.0.0.1:8/ingest', token });
  for (const token of [{ env: 'HOME' }, { env: 'WEIR_NO_SUCH_VARIABLE' }, { file: '/etc/hostname' }, { file: '/no/such/file' }]) {
    assert.equal(refusal(source(), { upsert_sinks: [hook(token)] }), { problems: [{ path: 'upsert_sinks[0].token', message: INLINE_ONLY }] });
    assert.equal(refusal(source(), { event_sinks: [hook(token)] }), { problems: [{ path: 'event_sinks[0].token', message: INLINE_ONLY }] });
  }
  assert.equal(applyBody(source(), { upsert_sinks: [hook('inline-token')] }).event_sinks.map((s) => s.tag), ['bill']);
});

test('a JSONL sink in a request writes inside the state_dir; elsewhere it is refused', () => {
  const stateDir = tempDir();
  const outside = path.join(tempDir(), 'x.jsonl');
  const message = `config.apply writes a JSONL sink inside node.state_dir (${stateDir}) only; other paths go in the config file`;
  assert.equal(refusal(source([], stateDir), { upsert_sinks: [{ type: 'jsonl', tag: 'x', path: outside }] }), {
    problems: [{ path: 'upsert_sinks[0].path', message }],
  });
  assert.equal(refusal(source([], stateDir), { event_sinks: [{ type: 'jsonl', tag: 'x', path: `${stateDir}/../x.jsonl` }] }), {
    problems: [{ path: 'event_sinks[0].path', message }],
  });
  const inside = path.join(stateDir, 'archive', 'x.jsonl');
  const applied = applyBody(source([], stateDir), { upsert_sinks: [{ type: 'jsonl', tag: 'x', path: inside }] });
  assert.equal(applied.event_sinks.map((s) => [s.tag, s.type === 'jsonl' && s.path]), [['x', inside]]);
});

test('what the node runs already may be sent back: a sink keeps its own secret reference and JSONL path', () => {
  process.env['WEIR_SPEC_APPLY_TOKEN'] = 'token-from-the-environment';
  const outside = path.join(tempDir(), 'archive.jsonl');
  const hook = { type: 'webhook', tag: 'bill', url: 'http://127.0.0.1:8/ingest', token: { env: 'WEIR_SPEC_APPLY_TOKEN' } };
  const archive = { type: 'jsonl', tag: 'archive', path: outside };
  const stateDir = tempDir();
  const src = source([archive, hook], stateDir);
  const applied = applyBody(src, { event_sinks: [archive, { ...hook, url: 'http://127.0.0.1:8/other' }] });
  assert.equal(applied.event_sinks.map((s) => s.tag), ['archive', 'bill']);
  // Another tag may not take them over.
  assert.equal(refusal(src, { upsert_sinks: [{ ...hook, tag: 'other' }, { ...archive, tag: 'copy' }] }), {
    problems: [
      { path: 'upsert_sinks[0].token', message: INLINE_ONLY },
      { path: 'upsert_sinks[1].path', message: `config.apply writes a JSONL sink inside node.state_dir (${stateDir}) only; other paths go in the config file` },
    ],
  });
});

test('a request sets the log level, not the log file the node would take at its next start', () => {
  assert.equal(refusal(source(), { log: { level: 'debug', file: path.join(tempDir(), 'elsewhere.log') } }), {
    problems: [{ path: 'log.file', message: 'config.apply sets the log level; the log file is set in the config file' }],
  });
  assert.is(applyBody(source(), { log: { level: 'debug' } }).log.level, 'debug');
});

test.run();
