import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { clashConnection } from '../../../../http/clash/connection-view.js';
import { shownTestUrl } from '../../../../http/clash/proxy-views.js';
import { clashRules } from '../../../../http/clash/rule-view.js';
import type { FlowRecord } from '../../../../streams/contract.js';
import { activeRecord, T0 } from '../../flows/fixtures.js';

const RULES = [
  { domain_suffix: ['example.com', 'example.org'], outbound: 'proxy' },
  { port: [443, '8000-8100'], network: ['tcp' as const], outbound: 'block' },
];
const ROUTE = { mode: 'rule' as const, rules: RULES, final: 'direct', sniff: false, process_lookup: false };

test('rules: one key is its Clash type with the values joined, several are AND with the condition, final is Match', () => {
  assert.equal(clashRules(ROUTE as never), [
    { type: 'DomainSuffix', payload: 'example.com,example.org', proxy: 'proxy', size: -1, index: 0 },
    { type: 'AND', payload: 'port=443,8000-8100 && network=tcp', proxy: 'block', size: -1, index: 1 },
    { type: 'Match', payload: '', proxy: 'direct', size: -1, index: 2 },
  ]);
});

test('a flow as a connection: ports as strings, host only for a name, chains leaf first, the rule that decided', () => {
  const record: FlowRecord = { ...activeRecord('f-9'), source: { ip: '127.0.0.1', port: 40000 } };
  const connection = clashConnection(record, RULES as never);
  assert.equal(connection, {
    id: 'f-9',
    metadata: {
      network: 'tcp',
      type: 'socks5',
      sourceIP: '127.0.0.1',
      sourcePort: '40000',
      destinationIP: '',
      destinationPort: '443',
      host: 'example.com',
      dnsMode: 'normal',
      inboundName: 'mixed-in',
      sniffHost: '',
      remoteDestination: 'example.com',
    },
    upload: 0,
    download: 0,
    start: new Date(T0).toISOString(),
    chains: ['hop-a', 'proxy'],
    rule: 'DomainSuffix',
    rulePayload: 'example.com,example.org',
  });
});

test('an IP target is destinationIP with an empty host; final is Match, global mode no rule, a hook its condition', () => {
  const base = activeRecord('f-10');
  const at = (matched: { index: number; condition: string }, host = '192.0.2.7'): ReturnType<typeof clashConnection> =>
    clashConnection({ ...base, target: { host, port: 80 }, route: { ...base.route, matched_rule: matched } }, RULES as never);
  const ip = at({ index: -1, condition: 'final' });
  assert.equal([ip.metadata['host'], ip.metadata['destinationIP'], ip.metadata['sourcePort'], ip.rule, ip.rulePayload], ['', '192.0.2.7', '', 'Match', '']);
  assert.equal([at({ index: -1, condition: 'global' }).rule, at({ index: -1, condition: 'global' }).rulePayload], ['', '']);
  assert.equal([at({ index: -1, condition: 'hook' }).rule, at({ index: -1, condition: 'hook' }).rulePayload], ['Hook', 'hook']);
  // A pending flow has no chain yet: an empty array, never null.
  assert.equal(clashConnection({ ...base, route: { ...base.route, selection_chain: [] } }, []).chains, []);
});

test('a url_test URL is shown as testUrl only when it holds no credentials and no query', () => {
  assert.is(shownTestUrl('http://probe.test/generate_204'), 'http://probe.test/generate_204');
  assert.is(shownTestUrl('https://user:secret@probe.test/'), null);
  assert.is(shownTestUrl('https://probe.test/check?key=secret'), null);
});

test.run();
