import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventSource } from 'eventsource';
import WebSocket from 'ws';
import { EVENT_TYPES, type Envelope } from '../../streams/contract.js';
import { WAIT_MS } from '../support/far-bound.js';

/** Polls until `check` returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => T | undefined | false, timeoutMs = WAIT_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

export interface SseFrame {
  id: string;
  event: string;
  data: string;
}

/** A real EventSource client that records every frame, with the key (or none) in a header. */
export class SseClient {
  readonly frames: SseFrame[] = [];
  readonly errors: { code: number | undefined; message: string | undefined }[] = [];
  private readonly es: EventSource;

  constructor(url: string, opts: { key?: string | null; lastEventId?: string } = {}) {
    this.es = new EventSource(url, {
      fetch: (input, init) => {
        const headers: Record<string, string> = { ...(init.headers as Record<string, string>) };
        if (opts.key !== null && opts.key !== undefined) headers['authorization'] = `Bearer ${opts.key}`;
        // Only the first request: a reconnect sends the client's own Last-Event-ID.
        if (opts.lastEventId !== undefined && this.frames.length === 0) headers['last-event-id'] ??= opts.lastEventId;
        return fetch(input, { ...init, headers });
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

/** A `ws` client that records every message as an envelope, and how it closed. */
export class WsClient {
  readonly envelopes: Envelope[] = [];
  closed: { code: number; reason: string } | null = null;
  unexpected: number | null = null;
  readonly ws: WebSocket;

  constructor(url: string, opts: { key?: string } = {}) {
    const headers: Record<string, string> = opts.key === undefined ? {} : { authorization: `Bearer ${opts.key}` };
    this.ws = new WebSocket(url, { headers });
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

/**
 * A loopback origin: `trickle` answers with a body of 1 KiB every 20 ms that never
 * ends (a live download), `ok` with a short body.
 */
export async function startOrigin(kind: 'trickle' | 'ok'): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => {
    if (kind === 'ok') return void res.end('ok\n');
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    const timer = setInterval(() => res.write(Buffer.alloc(1024, 0x61)), 20);
    res.once('close', () => clearInterval(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/${kind}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A curl download through the proxy; resolves with curl's exit code. */
export function curl(proxyUrl: string, url: string): { exit: Promise<number>; kill(): void } {
  const child = spawn('curl', ['-sS', '--max-time', '20', '-o', '/dev/null', '-x', proxyUrl, url], { stdio: 'ignore' });
  return {
    exit: new Promise((resolve) => child.once('exit', (code) => resolve(code ?? -1))),
    kill: () => child.kill(),
  };
}
