import type { UdpUpstreamStats } from '../../streams/contract.js';
import { zeroUdpStats } from '../flows/flow-stats.js';

/**
 * The node's udp_upstream counters from its workers' own: the latest of each live
 * worker, plus what exited workers had counted (their associations are no longer active).
 */
export class UdpTotals {
  private readonly live = new Map<number, UdpUpstreamStats>();
  private readonly gone = zeroUdpStats();

  constructor(private readonly into: UdpUpstreamStats) {}

  report(worker: number, udp: UdpUpstreamStats): void {
    this.live.set(worker, udp);
    this.sum();
  }

  exited(worker: number): void {
    const last = this.live.get(worker);
    if (!last) return;
    this.live.delete(worker);
    for (const key of Object.keys(this.gone) as (keyof UdpUpstreamStats)[]) if (key !== 'active_associations') this.gone[key] += last[key];
    this.sum();
  }

  private sum(): void {
    Object.assign(this.into, this.gone);
    for (const udp of this.live.values()) for (const key of Object.keys(this.into) as (keyof UdpUpstreamStats)[]) this.into[key] += udp[key];
  }
}
