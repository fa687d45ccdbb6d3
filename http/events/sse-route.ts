import type { RequestHandler, Response } from 'express';
import type { ControlOps } from '../../actors/control/control-ops.js';
import { sendProblem } from '../common/problem.js';
import { streamParams } from '../common/query-params.js';
import { SSE_KEEP_ALIVE, sseFrame, sseReplayGapComment, sseSlowConsumerFrame } from './encoders.js';
import { pumpEvents, type StreamTransport } from './event-pump.js';
import { replayGapHeaders } from './replay-gap.js';
import type { StreamLimits } from './stream-limits.js';
import type { SubscriberSlots } from './subscriber-slots.js';

function sseTransport(res: Response, slots: SubscriberSlots): StreamTransport {
  return {
    write: (frames) => res.write(frames.join('')),
    onDrain: (listener) => res.once('drain', listener),
    heartbeat: () => res.write(SSE_KEEP_ALIVE),
    // Ended, never destroyed: the socket then holds whole frames up to the closing one,
    // however late the client reads them, and at most the one write in flight besides.
    cutOff: (resumeFrom, dropped) => {
      slots.dropped('sse', dropped);
      res.end(sseSlowConsumerFrame(resumeFrom));
    },
    end: () => res.end(),
  };
}

/**
 * GET /api/v1/events/stream: replay after `since` (or Last-Event-ID), the
 * flow.snapshot baseline when the whitelist has flow types, then live events. A
 * `since` older than the ring gets its replay gap as a header and an opening comment.
 */
export function sseRoute(ops: ControlOps, limits: StreamLimits, slots: SubscriberSlots): RequestHandler {
  return (req, res) => {
    const params = streamParams({ types: req.query['types'], since: req.query['since'], lastEventId: req.get('last-event-id') });
    // Taken before the HEAD check, so a HEAD answers what a GET would (503 when full).
    const release = slots.take('sse');
    if (release === null) return void sendProblem(res.set(slots.refusal.headers), slots.refusal.body);
    res.once('close', release);
    // The gap is read here and the replay when the pump subscribes below, in the same tick.
    const { gap, events$ } = ops.subscribe(params);
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      // Tells nginx-like proxies not to hold frames back.
      'X-Accel-Buffering': 'no',
      ...replayGapHeaders(gap),
    });
    // Express routes HEAD to GET handlers; a HEAD gets the headers and no stream.
    if (req.method === 'HEAD') return void res.end();
    res.flushHeaders();
    req.socket.setNoDelay(true);
    if (gap) res.write(sseReplayGapComment(gap));
    const sub = pumpEvents(events$, sseFrame, sseTransport(res, slots), limits);
    res.once('close', () => sub.unsubscribe());
  };
}
