import type { FlowRecord, StatsSnapshot, UdpUpstreamStats } from '../../streams/contract.js';
import type { FlowChange } from '../../streams/flow-change.js';

export function zeroUdpStats(): UdpUpstreamStats {
  return {
    active_associations: 0,
    created_associations: 0,
    reused_associations: 0,
    closed_associations: 0,
    idle_timeouts: 0,
    dropped_associations: 0,
    failed_association_attempts: 0,
    send_failures: 0,
    recv_failures: 0,
    packets_sent: 0,
    packets_received: 0,
  };
}

/**
 * Session counters kept from the flow changes. Byte totals are those of completed
 * flows plus the live counters of active ones, read at snapshot time.
 */
export class FlowStats {
  private totalStarted = 0;
  private completed = 0;
  private failed = 0;
  private blocked = 0;
  private direct = 0;
  private chained = 0;
  private doneUp = 0;
  private doneDown = 0;
  readonly udp: UdpUpstreamStats = zeroUdpStats();

  observe(change: FlowChange): void {
    if (change.kind === 'started') this.totalStarted++;
    if (change.kind !== 'completed') return;
    const r = change.record;
    this.completed++;
    this.doneUp += r.traffic.bytes_up;
    this.doneDown += r.traffic.bytes_down;
    switch (r.result?.outcome) {
      case 'failed':
        this.failed++;
        break;
      case 'blocked':
        this.blocked++;
        break;
      case 'direct_relayed':
        this.direct++;
        break;
      case 'chained_relayed':
        this.chained++;
        break;
      default:
        break;
    }
  }

  /** `active` is walked once, not copied: this runs every second over every open flow. */
  snapshot(active: Iterable<FlowRecord>): StatsSnapshot {
    let up = this.doneUp;
    let down = this.doneDown;
    let count = 0;
    for (const r of active) {
      count++;
      up += r.traffic.bytes_up;
      down += r.traffic.bytes_down;
    }
    return {
      active_sessions: count,
      total_started: this.totalStarted,
      completed_sessions: this.completed,
      failed_sessions: this.failed,
      blocked_sessions: this.blocked,
      direct_sessions: this.direct,
      chained_sessions: this.chained,
      bytes_up: up,
      bytes_down: down,
      udp_upstream: { ...this.udp },
    };
  }
}
