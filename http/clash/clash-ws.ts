import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ControlAuth } from '../auth/control-auth.js';
import type { SubscriberSlots } from '../events/subscriber-slots.js';
import { clashRefusal, upgradeRefusal } from './clash-auth.js';
import { ClashError } from './clash-errors.js';
import { CLASH_BEHIND_BYTES, feedClash } from './clash-feed.js';
import type { ClashStreamPath } from './clash-paths.js';
import { clashStream, type StreamSources } from './clash-streams.js';

const WS_GOING_AWAY = 1001;

/** An upgrade refused with a plain HTTP answer in the Clash dialect. */
function refuse(socket: Duplex, status: number, message: string, headers: Record<string, string> = {}): void {
  const json = JSON.stringify({ message });
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(json)}`,
    'Access-Control-Allow-Origin: *',
    'Connection: close',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${json}`);
}

export interface ClashWs {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, path: ClashStreamPath, url: URL): void;
  /** Closes every Clash WebSocket (1001), terminating those that do not answer in `graceMs`. */
  close(graceMs: number): void;
}

/**
 * The Clash streams over WebSocket: one JSON text message per tick (or log line).
 * Dashboards open them from any origin (browsers do not CORS-check a WebSocket), with
 * the key as `?token=`. Each holds a place among the live subscribers.
 */
export function clashWs(src: StreamSources, auth: ControlAuth, slots: SubscriberSlots, log: Logger): ClashWs {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 4096 });
  const serve = (ws: WebSocket, socket: Duplex, path: ClashStreamPath, messages$: ReturnType<typeof clashStream>): void => {
    const sub = feedClash(messages$, {
      send: (text) => ws.send(text),
      behind: () => ws.bufferedAmount > CLASH_BEHIND_BYTES,
      skipped: () => slots.dropped('clash', 1),
      end: () => ws.close(WS_GOING_AWAY, 'node stopping'),
    });
    ws.on('error', () => ws.terminate());
    ws.once('close', (code) => {
      sub.unsubscribe();
      log.debug({ method: 'GET', path, status: 101, close_code: code }, 'control request');
    });
    socket.once('close', () => sub.unsubscribe());
  };
  return {
    handleUpgrade(req, socket, head, path, url) {
      socket.on('error', () => socket.destroy());
      const refusal = upgradeRefusal(auth, req, url);
      if (refusal) {
        const { status, message, headers } = clashRefusal(refusal);
        return refuse(socket, status, message, headers);
      }
      let messages$: ReturnType<typeof clashStream>;
      try {
        messages$ = clashStream(path, url.searchParams, src);
      } catch (err) {
        // An upgrade has no error middleware: whatever is thrown here is answered, never left to crash the node.
        if (err instanceof ClashError) return refuse(socket, err.status, err.message);
        log.error({ err, path }, 'clash stream failed to start');
        return refuse(socket, 500, 'the node could not start the stream');
      }
      const release = slots.take('clash');
      if (release === null) return refuse(socket, 503, slots.refusal.body.detail, slots.refusal.headers);
      socket.once('close', release);
      wss.handleUpgrade(req, socket, head, (ws) => serve(ws, socket, path, messages$));
    },
    close(graceMs) {
      for (const ws of wss.clients) {
        ws.close(WS_GOING_AWAY, 'control plane closing');
        setTimeout(() => ws.terminate(), graceMs).unref();
      }
      wss.close();
    },
  };
}
