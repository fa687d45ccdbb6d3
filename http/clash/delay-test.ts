import type { Request } from 'express';
import type { ControlOps } from '../../actors/control/control-ops.js';
import type { MemberProbe } from '../../actors/policies/probe-member.js';
import { BODY_INVALID, ClashError } from './clash-errors.js';
import type { DelayHistory } from './delay-history.js';

/** Probe error codes (the start of MemberProbe.error) that mean the time ran out. */
const TIMEOUT_CODES = ['PROBE_TIMEOUT', 'DIAL_TIMEOUT', 'HOP_TIMEOUT'];

/** The largest `timeout` mihomo takes (it parses an int16). */
const MAX_TIMEOUT_MS = 32767;

export interface DelayQuery {
  url: string;
  timeoutMs: number;
}

/** `?url=&timeout=` of a delay test; a missing or bad one is mihomo's 400 `Body invalid`. */
export function delayQuery(query: Request['query']): DelayQuery {
  const { url, timeout } = query;
  if (typeof url !== 'string' || url === '' || typeof timeout !== 'string' || !/^\d{1,5}$/.test(timeout)) {
    throw new ClashError(400, BODY_INVALID);
  }
  const timeoutMs = Number(timeout);
  if (timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) throw new ClashError(400, BODY_INVALID);
  return { url, timeoutMs };
}

/**
 * One delay test of an outbound (a group through its current leaf), kept in its
 * history: `{delay}` when healthy, else mihomo's 504 `Timeout` or 503.
 */
export async function delayOf(ops: ControlOps, history: DelayHistory, tag: string, q: DelayQuery): Promise<{ delay: number }> {
  const probe = await ops.probeOutbound(tag, q.url, q.timeoutMs);
  history.record(probe, Date.now());
  if (probe.healthy && probe.latency_ms !== null) return { delay: probe.latency_ms };
  if (TIMEOUT_CODES.some((code) => probe.error?.startsWith(`${code}:`))) throw new ClashError(504, 'Timeout');
  throw new ClashError(503, 'An error occurred in the delay test');
}

/** `{member: delay}` of the members that answered, as mihomo's group delay test. */
export function healthyDelays(members: readonly MemberProbe[]): Record<string, number> {
  return Object.fromEntries(members.filter((m) => m.healthy && m.latency_ms !== null).map((m) => [m.target_tag, m.latency_ms!]));
}
