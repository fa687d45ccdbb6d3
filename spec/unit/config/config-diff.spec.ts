import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fingerprint, restartRequired, withHotSections } from '../../../actors/config/config-diff.js';
import { parseConfig } from '../../../actors/config/load-config.js';
import type { WeirConfig } from '../../../actors/config/schema.js';
import { designExample, EXAMPLE_ENV } from './fixtures.js';

function parsed(edit: (raw: Record<string, any>) => void = () => {}, env: Record<string, string> = EXAMPLE_ENV): WeirConfig {
  const raw = designExample();
  edit(raw);
  const result = parseConfig(raw, { baseDir: '/etc/weir', env });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.config;
}

test('a changed secret changes the fingerprint, and the fingerprint holds no secret', () => {
  const before = parsed();
  const after = parsed(undefined, { ...EXAMPLE_ENV, WEIR_API_KEY: 'key-456-0123456789' });
  assert.is.not(fingerprint(before.control), fingerprint(after.control));
  assert.is(fingerprint(before.control), fingerprint(parsed().control), 'the same secret, the same fingerprint');
  for (const value of Object.values(EXAMPLE_ENV)) assert.not.ok(fingerprint(before).includes(value), `"${value}" shows`);
});

test('restartRequired names the changed sections that are not hot, and log.file', () => {
  const running = parsed();
  const next = parsed((raw) => {
    raw['node'].id = 'edge-fra-2';
    raw['inbounds'][0].port = 7891;
    raw['log'] = { level: 'debug', file: './other.log', access: false };
    raw['route'].final = 'direct';
    raw['event_sinks'] = [];
  });
  assert.equal(restartRequired(running, next), ['node', 'inbounds', 'log.file']);
  assert.equal(restartRequired(running, parsed((raw) => (raw['log'].level = 'debug'))), [], 'the log level is hot');
  assert.equal(restartRequired(running, parsed(undefined, { ...EXAMPLE_ENV, ALICE_PW: 'changed' })), ['inbounds'], 'a user password');
});

test('withHotSections takes the hot sections, the log level and the access switch, and keeps the rest as the node started', () => {
  const running = parsed();
  const next = parsed((raw) => {
    raw['node'].id = 'edge-fra-2';
    raw['log'] = { level: 'debug', file: './other.log', access: false };
    raw['route'].final = 'direct';
    raw['event_sinks'] = [];
  });
  const taken = withHotSections(running, next);
  assert.equal([taken.node.id, taken.log, taken.route, taken.event_sinks], [running.node.id, { level: 'debug', file: running.log.file, access: false }, next.route, []]);
  assert.is(taken.inbounds, running.inbounds);
});

test.run();
