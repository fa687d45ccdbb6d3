import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type net from 'node:net';

/** One request the receiver took, whatever it answered. */
export interface ReceivedRequest {
  /** When the request (head and body) had arrived, in ms since the epoch. */
  at: number;
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** webhook-id, or '' when the header is missing. */
  webhookId: string;
  /** webhook-timestamp in seconds; NaN when missing or not a number. */
  timestampS: number;
  /** Whether webhook-signature holds `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` keyed by the token. */
  signatureValid: boolean;
  /** What it was answered; null while the answer is delayed, or when the receiver stopped before answering. */
  status: number | null;
}

/** How to answer one request. */
export interface Answer {
  status: number;
  headers?: Record<string, string>;
  /** Wait this long before answering (a slow receiver). */
  delayMs?: number;
}

/** Chooses the answer; `attempt` counts the requests with this webhook-id so far, from 1. */
export type Responder = (req: ReceivedRequest, attempt: number) => Answer;

export interface WebhookReceiver {
  port: number;
  /** `http://127.0.0.1:<port><path>`; the path defaults to `/hook`. */
  url(path?: string): string;
  /** Every request taken, in arrival order. */
  requests(): ReceivedRequest[];
  /** Requests whose delayed answer has not been sent yet. */
  inFlight(): number;
  /** The envelopes of requests answered 2xx (a batch's array flattened), in arrival order. */
  acknowledged(): Record<string, unknown>[];
  /** Sets how the following requests are answered. */
  respond(responder: Responder): void;
  /** Closes the listener and drops every connection (requests in flight stay unanswered): the receiver is down. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Standard Webhooks signature check, with the token's UTF-8 bytes as the HMAC key. */
export function signatureIsValid(token: string, id: string, timestamp: string, body: string, header: string): boolean {
  const expected = Buffer.from(`v1,${createHmac('sha256', Buffer.from(token, 'utf8')).update(`${id}.${timestamp}.${body}`).digest('base64')}`);
  // The header may list several space-separated signatures; one valid one is enough.
  return header.split(' ').some((candidate) => {
    const got = Buffer.from(candidate);
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}

/**
 * A real Webhook receiver on 127.0.0.1 (port 0 at first, then the same port across
 * stop/start). It records every request with its arrival time and signature check and
 * answers as scripted, 200 by default.
 */
export async function startWebhookReceiver(token: string): Promise<WebhookReceiver> {
  const taken: ReceivedRequest[] = [];
  const attempts = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  const waiting = new Set<ReceivedRequest>();
  let responder: Responder = () => ({ status: 200 });

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const one = (name: string): string => String(req.headers[name] ?? '');
      const record: ReceivedRequest = {
        at: Date.now(),
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        webhookId: one('webhook-id'),
        timestampS: Number(one('webhook-timestamp') || Number.NaN),
        signatureValid: signatureIsValid(token, one('webhook-id'), one('webhook-timestamp'), body, one('webhook-signature')),
        status: null,
      };
      taken.push(record);
      const attempt = (attempts.get(record.webhookId) ?? 0) + 1;
      attempts.set(record.webhookId, attempt);
      const answer = responder(record, attempt);
      const send = (): void => {
        waiting.delete(record);
        if (res.destroyed) return;
        record.status = answer.status;
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers }).end('ok');
      };
      if (!answer.delayMs) return send();
      waiting.add(record);
      res.once('close', () => waiting.delete(record));
      const timer = setTimeout(() => {
        timers.delete(timer);
        send();
      }, answer.delayMs);
      timers.add(timer);
    });
  });
  // A spec that failed before close() must not keep the runner alive.
  server.unref();
  let port = 0;
  const listen = (): Promise<void> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        port = (server.address() as net.AddressInfo).port;
        resolve();
      });
    });
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      waiting.clear();
      if (!server.listening) return resolve();
      server.close(() => resolve());
      server.closeAllConnections();
    });

  await listen();
  return {
    port,
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    requests: () => [...taken],
    inFlight: () => waiting.size,
    acknowledged: () =>
      taken
        .filter((r) => r.status !== null && r.status >= 200 && r.status < 300)
        .flatMap((r) => {
          const parsed = JSON.parse(r.body) as Record<string, unknown> | Record<string, unknown>[];
          return Array.isArray(parsed) ? parsed : [parsed];
        }),
    respond: (next) => {
      responder = next;
    },
    stop,
    start: listen,
    close: stop,
  };
}
