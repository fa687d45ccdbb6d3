import { Router, type Request, type Response } from 'express';
import { readable } from '../auth/route-scope.js';
import type { SubscriberSlots } from '../events/subscriber-slots.js';
import { sendMessage } from './clash-errors.js';
import { CLASH_BEHIND_BYTES, feedClash } from './clash-feed.js';
import type { ClashStreamPath } from './clash-paths.js';
import { clashStream, type StreamSources } from './clash-streams.js';

/**
 * `/traffic`, `/memory` and `/logs` without an upgrade: a chunked body of
 * newline-ended JSON messages, which yacd reads with fetch when its WebSocket fails.
 * Each holds a place among the live subscribers, as SSE and WebSocket streams do.
 */
export function streamRoutes(src: StreamSources, slots: SubscriberSlots): Router {
  const r = Router();
  const serve = (path: ClashStreamPath) => (req: Request, res: Response) => {
    const messages$ = clashStream(path, new URLSearchParams(req.url.split('?')[1] ?? ''), src);
    const release = slots.take('clash');
    if (release === null) return sendMessage(res.set(slots.refusal.headers), 503, slots.refusal.body.detail);
    res.once('close', release);
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache' });
    // Express routes HEAD to GET handlers: a HEAD gets the headers and no stream.
    if (req.method === 'HEAD') return void res.end();
    res.flushHeaders();
    const sub = feedClash(messages$, {
      send: (text) => res.write(`${text}\n`),
      behind: () => res.writableLength > CLASH_BEHIND_BYTES,
      skipped: () => slots.dropped('clash', 1),
      end: () => res.end(),
    });
    res.once('close', () => sub.unsubscribe());
  };
  for (const path of ['/traffic', '/memory', '/logs'] as const) r.get(path, readable(), serve(path));
  return r;
}
