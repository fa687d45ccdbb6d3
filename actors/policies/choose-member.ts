import type { MemberProbe } from './probe-member.js';

/**
 * The member a url_test group uses after a round, or null when no member is healthy
 * (the group then keeps what it had). The fastest healthy member wins outright when
 * nothing was measured before (`current` is null) or the current member is unhealthy;
 * otherwise only when it beats the current one by more than `toleranceMs`, so small
 * jitter does not flap the route. Ties go to the member listed first.
 */
export function chooseMember(current: string | null, results: readonly MemberProbe[], toleranceMs: number): string | null {
  let best: { tag: string; latency: number } | null = null;
  for (const r of results) {
    if (r.healthy && r.latency_ms !== null && (best === null || r.latency_ms < best.latency)) {
      best = { tag: r.target_tag, latency: r.latency_ms };
    }
  }
  if (best === null) return null;
  const now = results.find((r) => r.target_tag === current);
  if (now === undefined || !now.healthy || now.latency_ms === null) return best.tag;
  return now.latency_ms - best.latency > toleranceMs ? best.tag : now.target_tag;
}
