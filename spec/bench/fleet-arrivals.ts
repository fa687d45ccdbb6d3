/** What the simulation needs of one request the receiver took (spec/support/webhook-receiver.ts). */
export interface TakenRequest {
  /** When it had arrived, in ms since the epoch. */
  readonly at: number;
  readonly status: number | null;
  readonly body: string;
}

/** One distinct flow.completed the receiver acknowledged, at its first acknowledgement. */
export interface Arrival {
  readonly nodeId: string;
  readonly occurredAt: number;
  readonly at: number;
}

/**
 * The events acknowledged so far, by event_id; reads the requests from index `from` on
 * and returns the index to go on from. A body is one envelope or an array of them (a
 * batch); a redelivered event keeps its first arrival.
 */
export function collectArrivals(into: Map<string, Arrival>, requests: readonly TakenRequest[], from: number): number {
  for (let i = from; i < requests.length; i += 1) {
    const r = requests[i]!;
    if (r.status === null || r.status < 200 || r.status >= 300) continue;
    const parsed = JSON.parse(r.body) as unknown;
    for (const e of (Array.isArray(parsed) ? parsed : [parsed]) as Record<string, unknown>[]) {
      const id = String(e['event_id']);
      if (!into.has(id)) into.set(id, { nodeId: String(e['node_id']), occurredAt: Number(e['occurred_at_unix_ms']), at: r.at });
    }
  }
  return requests.length;
}

/** The nearest-rank percentile p (0 < p ≤ 100) of values; null when there are none. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}

export interface Delivered {
  readonly events: number;
  /** Events over the time from `since` to the last arrival. */
  readonly perSecond: number;
  readonly p50Ms: number | null;
  readonly p99Ms: number | null;
}

/** The arrivals at or after `since` (ms since the epoch): their rate and delivery latency (occurred_at to arrival). */
export function delivered(arrivals: Iterable<Arrival>, since: number): Delivered {
  const latencies: number[] = [];
  let last = since;
  for (const a of arrivals) {
    if (a.at < since) continue;
    latencies.push(a.at - a.occurredAt);
    last = Math.max(last, a.at);
  }
  const seconds = (last - since) / 1000;
  return {
    events: latencies.length,
    perSecond: seconds > 0 ? latencies.length / seconds : 0,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
  };
}
