import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chooseMember } from '../../../actors/policies/choose-member.js';
import type { MemberProbe } from '../../../actors/policies/probe-member.js';

const up = (tag: string, latency_ms: number): MemberProbe => ({ target_tag: tag, healthy: true, latency_ms, error: null });
const down = (tag: string): MemberProbe => ({ target_tag: tag, healthy: false, latency_ms: null, error: 'PROBE_TIMEOUT: x' });

test('picks the fastest healthy member outright when nothing was measured before', () => {
  assert.is(chooseMember(null, [up('a', 100), up('b', 90), down('c')], 50), 'b');
});

test('keeps the current member when a faster one gains no more than the tolerance', () => {
  assert.is(chooseMember('a', [up('a', 100), up('b', 50)], 50), 'a');
});

test('switches when the gain exceeds the tolerance', () => {
  assert.is(chooseMember('a', [up('a', 100), up('b', 49)], 50), 'b');
});

test('leaves an unhealthy current member for the fastest healthy one, whatever the tolerance', () => {
  assert.is(chooseMember('a', [down('a'), up('b', 900), up('c', 800)], 10_000), 'c');
});

test('answers null when no member is healthy', () => {
  assert.is(chooseMember('a', [down('a'), down('b')], 50), null);
});

test('a 5xx member with a latency is not a candidate', () => {
  const bad: MemberProbe = { target_tag: 'b', healthy: false, latency_ms: 1, error: 'PROBE_HTTP_STATUS: HTTP status 503' };
  assert.is(chooseMember(null, [up('a', 100), bad], 0), 'a');
});

test('ties go to the member listed first', () => {
  assert.is(chooseMember(null, [up('a', 20), up('b', 20)], 0), 'a');
});

test.run();
