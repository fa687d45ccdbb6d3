import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig } from '../../../actors/config/load-config.js';
import { formatProblem } from '../../../actors/config/problems.js';
import { isDnsServer } from '../../../actors/config/schema-dns.js';
import { minimalConfig } from './fixtures.js';

function problems(more: Record<string, unknown>): string[] {
  const result = parseConfig({ ...minimalConfig(), ...more }, { env: {} });
  return result.ok ? [] : result.problems.map(formatProblem);
}

test('dns.servers takes an IP address with or without a port, IPv6 with a port in brackets', () => {
  for (const server of ['127.0.0.1', '127.0.0.1:5353', '::1', '[::1]:53', '2001:db8::53']) assert.ok(isDnsServer(server), server);
  for (const server of ['dns.example', '127.0.0.1:0', '127.0.0.1:65536', '[127.0.0.1]:53', '::1:53x', 'fe80::1%eth0', '[::1]', '']) {
    assert.not.ok(isDnsServer(server), server);
  }
});

test('dns.hosts maps host names to one address or several; a bad name or address is named by its path', () => {
  assert.equal(problems({ dns: { hosts: { 'a.test': '10.0.0.1', 'B.Test.': ['::1', '127.0.0.1'] }, servers: ['127.0.0.1:5353'] } }), []);
  assert.equal(problems({ dns: { hosts: { 'a.test': 'not-an-ip', 'b.test': [] } } }), [
    'dns.hosts.a.test: must be an IP address',
    'dns.hosts.b.test: must not be empty',
  ]);
  assert.equal(problems({ dns: { hosts: { '10.0.0.1': '10.0.0.2', 'a b.test': '10.0.0.2' } } }), ['dns.hosts.10.0.0.1: must be a host name', 'dns.hosts.a b.test: must be a host name']);
  assert.equal(problems({ dns: { servers: ['dns.example'] } }), ['dns.servers[0]: must be an IP address, optionally with a port ("1.2.3.4:53", "[::1]:53")']);
});

test('no_resolve belongs to an ip_cidr rule; block_private is a boolean', () => {
  const route = (rule: Record<string, unknown>, more: Record<string, unknown> = {}) => ({ route: { rules: [{ ...rule, outbound: 'direct' }], ...more } });
  assert.equal(problems(route({ ip_cidr: ['10.0.0.0/8'], no_resolve: true }, { block_private: true })), []);
  assert.equal(problems(route({ port: [80], no_resolve: true })), ['route.rules[0].no_resolve: applies to ip_cidr, which this rule does not have']);
  assert.equal(problems(route({ port: [80] }, { block_private: 'yes' })), ['route.block_private: must be of type boolean, not string']);
});

test.run();
