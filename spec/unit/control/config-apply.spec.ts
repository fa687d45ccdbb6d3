import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigSource } from '../../../actors/config/config-source.js';
import { ControlError } from '../../../actors/control/control-error.js';
import { applyBody } from '../../../actors/control/config-apply.js';
import { tempDir } from '../../support/temp-dir.js';

function source(eventSinks: unknown[] = []): ConfigSource {
  const stateDir = tempDir();
  return new ConfigSource(null, stateDir, {
    node: { id: 'apply-node', state_dir: stateDir },
    control: { listen: '127.0.0.1:0', api_key: 'apply-key-0123456789' },
    outbounds: [{ type: 'direct', tag: 'direct' }],
    route: { final: 'direct' },
    event_sinks: eventSinks,
  });
}

test('config.apply takes the IPC hook, a hot section', () => {
  const config = applyBody(source(), { ipc_hook: { path: '/run/hook.sock', timeout_ms: 50 } });
  assert.equal(config.ipc_hook, { path: path.resolve('/run/hook.sock'), timeout_ms: 50 });
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
  const jsonl = (tag: string): unknown => ({ type: 'jsonl', tag, path: `/tmp/${tag}.jsonl` });
  const webhook = { type: 'webhook', tag: 'bill', url: 'http://127.0.0.1:8/ingest', token: 'tok', events: ['flow.nosuch'] };
  try {
    applyBody(source([jsonl('a'), jsonl('b')]), { upsert_sinks: [jsonl('c'), webhook], remove_sinks: ['a'] });
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
    applyBody(source(), { upsert_sinks: [hook('http://127.0.0.1:8/one'), { type: 'jsonl', tag: 'b', path: '/tmp/b.jsonl' }, hook('http://127.0.0.1:8/two')] });
    assert.unreachable('applied');
  } catch (err) {
    assert.instance(err, ControlError);
    assert.is((err as ControlError).code, 'CONFIG_INVALID');
    assert.equal((err as ControlError).details, { problems: [{ path: 'upsert_sinks[2].tag', message: 'duplicate tag "a" (first used at upsert_sinks[0])' }] });
  }
});

test.run();
