import http from 'node:http';
import type net from 'node:net';

/** Every event the receiver took, by event_id: kept only when asked for (startAckReceiver's byEventId). */
export interface EventTally {
  /** How many times each event_id arrived. */
  readonly deliveries: ReadonlyMap<string, number>;
  /** Date.now() at the first and the last request that brought an event_id not seen before; null before any. */
  readonly firstNewAt: number | null;
  readonly lastNewAt: number | null;
}

/** A Webhook receiver that acknowledges every request with 204 and counts the events. */
export interface AckReceiver {
  readonly url: string;
  /**
   * Counts anew from now; resolves with performance.now() at the answer that completed
   * n events, or with null if timeoutMs passes first.
   */
  expect(n: number, timeoutMs: number): Promise<number | null>;
  /** Events acknowledged since the last expect. */
  counted(): number;
  /** The events by event_id since the receiver started; empty unless started with byEventId. */
  tally(): EventTally;
  close(): Promise<void>;
}

export interface AckReceiverOptions {
  /**
   * Reads each body (one envelope or a JSON array of them) and tallies its event_ids,
   * to find events never delivered and those delivered twice. Off by default: parsing
   * costs the receiver CPU beside the node it measures.
   */
  readonly byEventId?: boolean;
}

/** Events in one request: a batch's webhook-id is `<first event_id>+<count - 1>.<digest>` (batch-id.ts). */
function eventsIn(webhookId: string): number {
  const plus = webhookId.lastIndexOf('+');
  return plus < 0 ? 1 : Number.parseInt(webhookId.slice(plus + 1), 10) + 1;
}

/** The event_ids of a body: one envelope or an array of them. */
function eventIdsOf(body: string): string[] {
  const parsed = JSON.parse(body) as unknown;
  return (Array.isArray(parsed) ? parsed : [parsed]).map((e) => String((e as { event_id?: unknown }).event_id));
}

/**
 * Unlike spec/support/webhook-receiver.ts it keeps no bodies and checks no signatures:
 * it runs in the bench process beside the measured node and must cost as little as a
 * receiver can. A webhook-id seen twice (a retry) is acknowledged but not counted again.
 */
export async function startAckReceiver(opts: AckReceiverOptions = {}): Promise<AckReceiver> {
  let seen = new Set<string>();
  let count = 0;
  let goal: { n: number; resolve: (at: number | null) => void; timer: NodeJS.Timeout } | null = null;
  const deliveries = new Map<string, number>();
  let firstNewAt: number | null = null;
  let lastNewAt: number | null = null;
  const tallyBody = (body: string): void => {
    let fresh = false;
    for (const id of eventIdsOf(body)) {
      const before = deliveries.get(id) ?? 0;
      deliveries.set(id, before + 1);
      fresh ||= before === 0;
    }
    if (!fresh) return;
    lastNewAt = Date.now();
    firstNewAt ??= lastNewAt;
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    if (opts.byEventId) req.on('data', (d: Buffer) => chunks.push(d));
    else req.resume();
    req.on('end', () => {
      res.writeHead(204).end();
      if (opts.byEventId) tallyBody(Buffer.concat(chunks).toString());
      const id = String(req.headers['webhook-id'] ?? '');
      if (seen.has(id)) return;
      seen.add(id);
      count += eventsIn(id);
      if (goal && count >= goal.n) {
        clearTimeout(goal.timer);
        goal.resolve(performance.now());
        goal = null;
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    expect: (n, timeoutMs) =>
      new Promise((resolve) => {
        seen = new Set();
        count = 0;
        const timer = setTimeout(() => {
          goal = null;
          resolve(null);
        }, timeoutMs);
        goal = { n, resolve, timer };
      }),
    counted: () => count,
    tally: () => ({ deliveries, firstNewAt, lastNewAt }),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
