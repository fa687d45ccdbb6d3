import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigSource } from '../../../actors/config/config-source.js';
import { formatProblem } from '../../../actors/config/problems.js';
import type { WeirConfig } from '../../../actors/config/schema.js';
import { tempDir } from '../../support/temp-dir.js';

const jsonl = (tag: string): Record<string, unknown> => ({ type: 'jsonl', tag, path: `./state/${tag}.jsonl` });

/** A config file in a temp dir, written again by `edit`; its state dir is ./state beside it. */
function configFile(doc: Record<string, unknown>): { file: string; stateDir: string; edit(change: (doc: Record<string, unknown>) => void): void } {
  const dir = tempDir();
  const file = path.join(dir, 'weir.json');
  const write = (): void => fs.writeFileSync(file, JSON.stringify(doc));
  write();
  return {
    file,
    stateDir: path.join(dir, 'state'),
    edit(change) {
      change(doc);
      write();
    },
  };
}

function base(): Record<string, unknown> {
  return {
    node: { id: 'n', state_dir: './state' },
    log: { level: 'info', file: './state/weir.log' },
    control: { listen: '127.0.0.1:0', api_key: 'source-key-0123456789' },
    outbounds: [{ type: 'direct', tag: 'direct' }, { type: 'block', tag: 'block' }],
    route: { final: 'direct' },
    event_sinks: [jsonl('archive')],
  };
}

function loaded(source: ConfigSource): WeirConfig {
  const result = source.load();
  if (!result.ok) throw new Error(result.problems.map(formatProblem).join('; '));
  return result.config;
}

const tags = (config: WeirConfig): string[] => config.event_sinks.map((s) => s.tag);

test("an applied IPC hook timeout follows the file's socket path on reload; another path is refused", () => {
  const f = configFile({ ...base(), ipc_hook: { path: './a.sock' } });
  const source = new ConfigSource(f.file, f.stateDir);
  loaded(source);
  assert.ok(source.apply({ sections: { ipc_hook: { path: './a.sock', timeout_ms: 900 } } }).ok);
  f.edit((doc) => (doc['ipc_hook'] = { path: './b.sock' }));
  const hookOf = (config: WeirConfig): unknown => config.ipc_hook;
  assert.equal(hookOf(loaded(source)), { path: path.join(path.dirname(f.file), 'b.sock'), timeout_ms: 900 });
  const moved = source.apply({ sections: { ipc_hook: { path: './a.sock', timeout_ms: 800 } } });
  assert.equal(moved.ok ? [] : moved.problems.map((p) => p.path), ['ipc_hook.path']);
});

test("a sink a controller upserted leaves the file's sinks to the file: an edit of them applies on reload", () => {
  const f = configFile(base());
  const source = new ConfigSource(f.file, f.stateDir);
  loaded(source);
  assert.ok(source.apply({ sections: {}, edits: { upsert: [jsonl('billing')], remove: [] } }).ok);
  f.edit((doc) => (doc['event_sinks'] as unknown[]).push(jsonl('second')));
  assert.equal(tags(loaded(source)), ['archive', 'second', 'billing']);
  // A restart (a new source on the same files) runs on the same.
  assert.equal(tags(loaded(new ConfigSource(f.file, f.stateDir))), ['archive', 'second', 'billing']);
});

test('a removal by config.apply holds against the file; upserting the tag again brings the sink back', () => {
  const f = configFile(base());
  const source = new ConfigSource(f.file, f.stateDir);
  loaded(source);
  assert.ok(source.apply({ sections: {}, edits: { upsert: [], remove: ['archive'] } }).ok);
  assert.equal(tags(loaded(source)), []);
  assert.ok(source.apply({ sections: {}, edits: { upsert: [jsonl('archive')], remove: [] } }).ok);
  assert.equal(tags(loaded(source)), ['archive']);
});

test("an applied log level keeps the file's log file", () => {
  const f = configFile(base());
  const source = new ConfigSource(f.file, f.stateDir);
  loaded(source);
  const applied = source.apply({ sections: { log: { level: 'debug' } } });
  if (!applied.ok) throw new Error('refused');
  assert.equal([applied.config.log.level, applied.config.log.file], ['debug', path.join(f.stateDir, 'weir.log')]);
});

test('a reload reads the overlay of the state dir the node runs on, not of one the file names since', () => {
  const f = configFile(base());
  const source = new ConfigSource(f.file, f.stateDir);
  loaded(source);
  assert.ok(source.apply({ sections: {}, edits: { upsert: [jsonl('billing')], remove: [] } }).ok);
  f.edit((doc) => (doc['node'] = { id: 'n', state_dir: './elsewhere' }));
  assert.equal(tags(loaded(source)), ['archive', 'billing']);
});

test('a problem of an applied section names the overlay file it comes from', () => {
  const f = configFile(base());
  const source = new ConfigSource(f.file, f.stateDir);
  loaded(source);
  assert.ok(source.apply({ sections: { route: { rules: [{ domain: ['ads.test'], outbound: 'block' }], final: 'direct' } } }).ok);
  f.edit((doc) => (doc['outbounds'] = [{ type: 'direct', tag: 'direct' }]));
  const result = new ConfigSource(f.file, f.stateDir).load();
  assert.not.ok(result.ok);
  assert.equal(result.ok ? [] : result.problems.map(formatProblem), [
    `route.rules[0].outbound: unknown tag "block" (set by config.apply, kept in ${path.join(f.stateDir, 'applied-config.json')})`,
  ]);
});

test.run();
