import type { IncomingHttpHeaders } from 'node:http';
import { EventSource } from 'eventsource';
import WebSocket from 'ws';
import { EVENT_TYPES, type Envelope } from '../../streams/contract.js';

export interface SseFrame {
  id: string;
  event: string;
  data: string;
}

/** A real EventSource client that records every frame and its last response's headers, with the key (or none) in a header. */
export class SseClient {
  readonly frames: SseFrame[] = [];
  readonly errors: { code: number | undefined; message: string | undefined }[] = [];
  responseHeaders: Headers | null = null;
  private readonly es: EventSource;

  /** `fetch` replaces the global one, e.g. an HTTPS fetch that trusts a test CA (httpsFetch). */
  constructor(url: string, opts: { key?: string | null; lastEventId?: string; fetch?: typeof fetch } = {}) {
    const get = opts.fetch ?? fetch;
    this.es = new EventSource(url, {
      fetch: (input, init) => {
        const headers: Record<string, string> = { ...(init.headers as Record<string, string>) };
        if (opts.key !== null && opts.key !== undefined) headers['authorization'] = `Bearer ${opts.key}`;
        // Only the first request: a reconnect sends the client's own Last-Event-ID.
        if (opts.lastEventId !== undefined && this.frames.length === 0) headers['last-event-id'] ??= opts.lastEventId;
        return get(input, { ...init, headers }).then((res) => {
          this.responseHeaders = res.headers;
          return res;
        });
      },
    });
    for (const type of [...EVENT_TYPES, 'error']) {
      this.es.addEventListener(type, (e) => {
        if (e instanceof MessageEvent) this.frames.push({ id: e.lastEventId, event: e.type, data: String(e.data) });
      });
    }
    this.es.addEventListener('error', (e) => {
      if (!(e instanceof MessageEvent)) this.errors.push({ code: e.code, message: e.message });
    });
  }

  get envelopes(): Envelope[] {
    return this.frames.filter((f) => f.event !== 'error').map((f) => JSON.parse(f.data) as Envelope);
  }

  get readyState(): number {
    return this.es.readyState;
  }

  close(): void {
    this.es.close();
  }
}

/** A `ws` client that records every message as an envelope, the headers of its 101, and how it closed. */
export class WsClient {
  readonly envelopes: Envelope[] = [];
  closed: { code: number; reason: string } | null = null;
  unexpected: number | null = null;
  upgradeHeaders: IncomingHttpHeaders | null = null;
  readonly ws: WebSocket;

  constructor(url: string, opts: { key?: string } = {}) {
    const headers: Record<string, string> = opts.key === undefined ? {} : { authorization: `Bearer ${opts.key}` };
    this.ws = new WebSocket(url, { headers });
    this.ws.on('upgrade', (res) => (this.upgradeHeaders = res.headers));
    this.ws.on('message', (data) => this.envelopes.push(JSON.parse(String(data)) as Envelope));
    this.ws.on('close', (code, reason) => (this.closed = { code, reason: reason.toString() }));
    this.ws.on('unexpected-response', (_req, res) => {
      this.unexpected = res.statusCode ?? 0;
      res.resume();
      this.ws.terminate();
    });
    this.ws.on('error', () => undefined);
  }

  close(): void {
    this.ws.close();
  }
}
