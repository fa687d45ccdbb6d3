import http from 'node:http';
import type net from 'node:net';

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
  close(): Promise<void>;
}

/** Events in one request: a batch's webhook-id is `<first event_id>+<count - 1>.<digest>` (batch-id.ts). */
function eventsIn(webhookId: string): number {
  const plus = webhookId.lastIndexOf('+');
  return plus < 0 ? 1 : Number.parseInt(webhookId.slice(plus + 1), 10) + 1;
}

/**
 * Unlike spec/support/webhook-receiver.ts it keeps no bodies and checks no signatures:
 * it runs in the bench process beside the measured node and must cost as little as a
 * receiver can. A webhook-id seen twice (a retry) is acknowledged but not counted again.
 */
export async function startAckReceiver(): Promise<AckReceiver> {
  let seen = new Set<string>();
  let count = 0;
  let goal: { n: number; resolve: (at: number | null) => void; timer: NodeJS.Timeout } | null = null;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(204).end();
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
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
