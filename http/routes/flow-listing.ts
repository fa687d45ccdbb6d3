import type { Request, Response } from 'express';
import type { ControlOps } from '../../actors/control/control-ops.js';
import { activeFlowsQuery } from './active-flows.js';

/**
 * GET /api/v1/flows: `{"flows":[…]}`, or with `limit` or `after` a page of them,
 * `{"flows":[…],"next":…}`, written as the records are serialized, a slice at a time
 * (recordSlices), so neither the node's event loop nor its memory holds the whole
 * listing of a large table at once. A client that reads slowly is waited for; one that
 * leaves ends the listing.
 */
export async function listFlows(ops: ControlOps, req: Request, res: Response): Promise<void> {
  const stopped = (): boolean => req.socket.destroyed;
  const q = activeFlowsQuery(req.query);
  const page = q && ops.activeFlowPage(q, stopped);
  res.type('application/json');
  let separator = '';
  res.write('{"flows":[');
  for await (const slice of page ? page.slices : ops.flowSlices(stopped)) {
    if (!res.write(separator + slice)) await drainedOrClosed(res);
    separator = ',';
  }
  res.end(page ? `],"next":${JSON.stringify(page.next)}}` : ']}');
}

/** Waits for the response to take more, or to be closed (then no drain would ever come). */
function drainedOrClosed(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
