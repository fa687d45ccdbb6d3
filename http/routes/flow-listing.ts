import type { Request, Response } from 'express';
import type { ControlOps } from '../../actors/control/control-ops.js';

/**
 * GET /api/v1/flows: `{"flows":[…]}` written as the records are serialized, a slice at
 * a time (recordSlices), so neither the node's event loop nor its memory holds the
 * whole listing of a large table at once. A client that reads slowly is waited for;
 * one that leaves ends the listing.
 */
export async function listFlows(ops: ControlOps, req: Request, res: Response): Promise<void> {
  res.type('application/json');
  let separator = '';
  res.write('{"flows":[');
  for await (const slice of ops.flowSlices(() => req.socket.destroyed)) {
    if (!res.write(separator + slice)) await drainedOrClosed(res);
    separator = ',';
  }
  res.end(']}');
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
