import type { RequestHandler, Response } from 'express';
import type { ControlOps } from '../../actors/control/control-ops.js';
import { streamParams } from '../query-params.js';
import { SSE_KEEP_ALIVE, sseFrame, sseSlowConsumerFrame } from './encoders.js';
import { pumpEvents, type StreamTransport } from './event-pump.js';
import type { StreamLimits } from './stream-limits.js';

function sseTransport(res: Response, closeGraceMs: number): StreamTransport {
  return {
    write: (frames) => res.write(frames.join('')),
    onDrain: (listener) => res.once('drain', listener),
    heartbeat: () => res.write(SSE_KEEP_ALIVE),
    cutOff: (resumeFrom) => {
      res.end(sseSlowConsumerFrame(resumeFrom));
      // A client that never reads again would hold its buffered frames forever.
      const timer = setTimeout(() => res.destroy(), closeGraceMs).unref();
      res.once('close', () => clearTimeout(timer));
    },
    end: () => res.end(),
  };
}

/**
 * GET /api/v1/events/stream: replay after `since` (or Last-Event-ID), the
 * flow.snapshot baseline when the whitelist has flow types, then live events.
 */
export function sseRoute(ops: ControlOps, limits: StreamLimits): RequestHandler {
  return (req, res) => {
    const params = streamParams({ types: req.query['types'], since: req.query['since'], lastEventId: req.get('last-event-id') });
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      // Tells nginx-like proxies not to hold frames back.
      'X-Accel-Buffering': 'no',
    });
    // Express routes HEAD to GET handlers; a HEAD gets the headers and no stream.
    if (req.method === 'HEAD') return void res.end();
    res.flushHeaders();
    req.socket.setNoDelay(true);
    const sub = pumpEvents(ops.subscribe(params), sseFrame, sseTransport(res, limits.closeGraceMs), limits);
    res.once('close', () => sub.unsubscribe());
  };
}
