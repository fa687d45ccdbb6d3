import type { Subscription } from 'rxjs';
import type { ControlOps } from '../../actors/control/control-ops.js';
import type { ProbeCompletedPayload } from '../../actors/policies/policy-events.js';
import type { MemberProbe } from '../../actors/policies/probe-member.js';

/** One entry of a Clash proxy's `history`: when, and the delay in ms (0: the test failed). */
export interface DelayResult {
  time: string;
  delay: number;
}

/** How many results each proxy keeps, as mihomo does. */
const KEPT = 10;

/**
 * The last delay results of each outbound tag: every url_test round's members (from
 * policy.probe.completed on the bus, whoever started the round) and every Clash delay
 * test. In memory: a restart begins with none, as mihomo does.
 */
export class DelayHistory {
  private readonly byTag = new Map<string, DelayResult[]>();
  private readonly sub: Subscription;

  constructor(ops: ControlOps) {
    this.sub = ops.subscribe({ types: ['policy.probe.completed'] }).events$.subscribe((e) => {
      const round = e.envelope().payload as ProbeCompletedPayload;
      for (const member of round.members) this.record(member, round.completed_at_unix_ms);
    });
  }

  record(probe: MemberProbe, atMs: number): void {
    const results = this.byTag.get(probe.target_tag) ?? [];
    results.push({ time: new Date(atMs).toISOString(), delay: probe.healthy ? (probe.latency_ms ?? 0) : 0 });
    if (results.length > KEPT) results.shift();
    this.byTag.set(probe.target_tag, results);
  }

  of(tag: string): DelayResult[] {
    return [...(this.byTag.get(tag) ?? [])];
  }

  close(): void {
    this.sub.unsubscribe();
  }
}
