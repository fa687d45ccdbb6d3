import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { auditTarget } from '../../../actors/control/audit-trail.js';

test('a config.apply is named by its sections and sink tags, never by a value', () => {
  const body = {
    route: { rules: [{ domain: ['secret.internal'], outbound: 'block' }] },
    log: { level: 'debug' },
    upsert_sinks: [{ tag: 'billing', type: 'webhook', url: 'https://c.example/in?sig=abc', token: 'tok-value' }, { tag: 42 }, 'junk'],
    remove_sinks: ['old', 7],
    password: 'not a section',
  };
  const target = auditTarget('config.apply', body);
  assert.equal(target, { sections: ['route', 'log'], upsert_sinks: ['billing', 'junk'], remove_sinks: ['old'] });
  for (const value of ['secret.internal', 'tok-value', 'sig=abc', 'not a section']) assert.not.ok(JSON.stringify(target).includes(value));
});

test('a body that is no object, or fields of the wrong type, give an empty target', () => {
  assert.equal(auditTarget('config.apply', {}), { sections: [], upsert_sinks: [], remove_sinks: [] });
  assert.equal(auditTarget('select', { selector: 5, member: { name: 'x' } }), {});
  assert.equal(auditTarget('sinks.replay', { sink: 'hook', ids: ['a', 'b'] }), { sink: 'hook', ids: 2 });
  assert.equal(auditTarget('sinks.replay', { sink: 'hook' }), { sink: 'hook', ids: null });
});

test('only the naming fields of a write are kept, cut to 256 characters', () => {
  assert.equal(auditTarget('mode', { mode: 'global', target: 'proxy', extra: 'x' }), { mode: 'global', target: 'proxy' });
  assert.equal((auditTarget('flows.close', { flow_id: 'f'.repeat(10_000) })['flow_id'] as string).length, 256);
  assert.equal(auditTarget('config.reload', { anything: 'x' }), {});
});

test.run();
