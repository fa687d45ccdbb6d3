import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocketServer, type WebSocket } from 'ws';
import type { ControlOps } from '../../actors/control/control-ops.js';
import type { ControlAuth } from '../auth/control-auth.js';
import { bearerToken } from '../common/bearer-key.js';
import { PROBLEM_CONTENT_TYPE, problem, problemFor, type Problem } from '../common/problem.js';
import { streamParams, type StreamParams } from '../common/query-params.js';
import { wsMessage, wsSlowConsumerReason } from './encoders.js';
import { pumpEvents, type StreamTransport } from './event-pump.js';
import { replayGapHeaders } from './replay-gap.js';
import type { StreamLimits } from './stream-limits.js';
import type { SubscriberSlots } from './subscriber-slots.js';

export const WS_PATH = '/api/v1/events/ws';

/** Close code of a subscriber cut off for falling behind (private-use range 4000-4999). */
export const WS_SLOW_CONSUMER = 4008;
const WS_GOING_AWAY = 1001;

/** An upgrade that cannot be served gets a plain HTTP problem response instead of 101. */
function rejectUpgrade(socket: Duplex, body: Problem, headers: Record<string, string>): void {
  const json = JSON.stringify(body);
  const head = [
    `HTTP/1.1 ${body.status} ${STATUS_CODES[body.status] ?? ''}`,
    `Content-Type: ${PROBLEM_CONTENT_TYPE}`,
    `Content-Length: ${Buffer.byteLength(json)}`,
    'Connection: close',
  ];
  for (const [name, value] of Object.entries(headers)) head.push(`${name}: ${value}`);
  socket.end(`${head.join('\r\n')}\r\n\r\n${json}`);
}

/** A query parameter as the shared parsers take it: absent, one string, or repeated. */
function queryValue(url: URL, name: string): string | string[] | undefined {
  const all = url.searchParams.getAll(name);
  return all.length <= 1 ? all[0] : all;
}

function wsTransport(ws: WebSocket, socket: Duplex, slots: SubscriberSlots): StreamTransport {
  return {
    write: (frames) => {
      // One writev per tick instead of one write per message.
      socket.cork();
      for (const frame of frames) ws.send(frame);
      socket.uncork();
      return !socket.writableNeedDrain;
    },
    onDrain: (listener) => socket.once('drain', listener),
    heartbeat: () => ws.ping(),
    // ws destroys the socket if the close handshake does not finish in 30 s.
    cutOff: (resumeFrom, dropped) => {
      slots.dropped('ws', dropped);
      ws.close(WS_SLOW_CONSUMER, wsSlowConsumerReason(resumeFrom));
    },
    end: () => ws.close(WS_GOING_AWAY, 'node stopping'),
  };
}

export interface WsEvents {
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Closes every WebSocket subscriber (1001), terminating those that do not answer in `graceMs`. */
  close(graceMs: number): void;
}

/**
 * The WebSocket twin of the SSE stream at /api/v1/events/ws: same filter, resume and
 * snapshot semantics, one message per envelope. Browsers cannot set headers on a
 * WebSocket, so the key may also come as `?token=`. A replay gap is a header of the
 * 101 answer: every message is an envelope, and stays one.
 */
export function wsEvents(ops: ControlOps, auth: ControlAuth, limits: StreamLimits, slots: SubscriberSlots, log: Logger): WsEvents {
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 4096 });
  // Headers of a 101 beyond ws's own, by request; ws asks for them while it answers.
  const upgradeHeaders = new WeakMap<IncomingMessage, Record<string, string>>();
  wss.on('headers', (lines: string[], req: IncomingMessage) => {
    for (const [name, value] of Object.entries(upgradeHeaders.get(req) ?? {})) lines.push(`${name}: ${value}`);
  });

  const accept = (req: IncomingMessage, socket: Duplex, head: Buffer, params: StreamParams, started: number): void => {
    // The gap is read here and the replay when the pump subscribes: ws answers the
    // upgrade and calls back within handleUpgrade (no verifyClient), in the same tick.
    const { gap, events$ } = ops.subscribe(params);
    upgradeHeaders.set(req, replayGapHeaders(gap));
    wss.handleUpgrade(req, socket, head, (ws) => {
      const sub = pumpEvents(events$, wsMessage, wsTransport(ws, socket, slots), limits);
      ws.on('error', () => ws.terminate());
      ws.once('close', (code) => {
        sub.unsubscribe();
        log.debug({ method: 'GET', path: WS_PATH, status: 101, close_code: code, duration_ms: Math.round(performance.now() - started) }, 'control request');
      });
    });
  };

  return {
    handleUpgrade(req, socket, head) {
      const started = performance.now();
      socket.on('error', () => socket.destroy());
      const url = targetUrl(req.url);
      const refuse = (body: Problem, headers: Record<string, string> = {}): void => {
        rejectUpgrade(socket, body, headers);
        log.info({ method: req.method, path: url?.pathname, status: body.status, duration_ms: Math.round(performance.now() - started) }, 'control request');
      };
      if (!url) return refuse(problem('BAD_REQUEST', 'the request target is not a valid URL'));
      if (url.pathname !== WS_PATH) return refuse(problem('NOT_FOUND', `no WebSocket at ${url.pathname}`));
      const presented = bearerToken(req.headers.authorization) ?? url.searchParams.get('token') ?? undefined;
      const { refusal } = auth.check(presented, req.socket.remoteAddress);
      if (refusal) return refuse(problem(refusal.code, refusal.detail), refusal.headers);
      let params: StreamParams;
      try {
        const lastEventId = req.headers['last-event-id'];
        params = streamParams({
          types: queryValue(url, 'types'),
          since: queryValue(url, 'since'),
          lastEventId: typeof lastEventId === 'string' ? lastEventId : undefined,
        });
      } catch (err) {
        return refuse(problemFor(err));
      }
      const release = slots.take('ws');
      if (release === null) return refuse(slots.refusal.body, slots.refusal.headers);
      // The socket, not the WebSocket: it also closes when ws aborts a handshake it cannot complete.
      socket.once('close', release);
      accept(req, socket, head, params, started);
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

/** The upgrade's target as a URL; null when it is none (`http://[`), which `new URL` would throw on. */
function targetUrl(target: string | undefined): URL | null {
  try {
    return new URL(target ?? '/', 'http://control.invalid');
  } catch {
    return null;
  }
}
