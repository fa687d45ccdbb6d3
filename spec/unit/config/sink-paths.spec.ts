import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfigFile, parseConfig } from '../../../actors/config/load-config.js';
import { formatProblem } from '../../../actors/config/problems.js';
import { tempDir } from '../../support/temp-dir.js';
import { designExample, EXAMPLE_ENV } from './fixtures.js';

const cwd = process.cwd();

/** The design example with a second JSONL sink writing to `file`. */
function withSinkAt(file: string): Record<string, any> {
  const raw = designExample();
  raw.event_sinks.push({ type: 'jsonl', tag: 'second', path: file });
  return raw;
}

function problems(raw: unknown): string[] {
  const result = parseConfig(raw, { env: EXAMPLE_ENV });
  return result.ok ? [] : result.problems.map(formatProblem);
}

test('a JSONL sink may not write into another sink’s file, the log or the node’s own files in its state_dir', () => {
  const raw = designExample();
  const first = raw.event_sinks.find((s: { type: string }) => s.type === 'jsonl') as { path: string };
  const at = raw.event_sinks.length;
  assert.equal(problems(withSinkAt(first.path)), [`event_sinks[${at}].path: ${path.resolve(cwd, first.path)} is the file of sink "archive"`]);
  assert.equal(problems(withSinkAt('./state/weir.log')), [`event_sinks[${at}].path: ${path.resolve(cwd, 'state/weir.log')} is the log file`]);
  for (const own of ['./state/sequence.json', './state/outbox/data.mdb', './state/applied-config.json']) {
    assert.equal(problems(withSinkAt(own)), [`event_sinks[${at}].path: must end in .jsonl inside node.state_dir (${path.resolve(cwd, 'state')}), where the node keeps its own files`], own);
  }
  assert.equal(problems(withSinkAt('./state/second.jsonl')), []);
  assert.equal(problems(withSinkAt('./archive/events.log')), [], 'outside the state_dir any name');
});

test('a JSONL sink may not write into the config file it was read from', () => {
  const dir = tempDir('weir-sink-paths-');
  const file = path.join(dir, 'weir.json');
  const raw = withSinkAt('./weir.json');
  fs.writeFileSync(file, JSON.stringify(raw));
  const result = loadConfigFile(file, { env: EXAMPLE_ENV });
  assert.equal(result.ok ? [] : result.problems.map(formatProblem), [`event_sinks[${raw.event_sinks.length - 1}].path: ${file} is the config file`]);
});

test.run();
