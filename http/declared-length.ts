import type { RequestHandler } from 'express';
import { problem, sendProblem } from './common/problem.js';

/**
 * Answers 413 once the declared Content-Length exceeds the limit, before a byte of the
 * body is read. body-parser refuses such a length too, but only after it has drained the
 * whole body, which holds the connection for as long as the client takes to send it.
 * The connection closes after the answer, so the rest of the body is never read.
 */
export function refuseDeclaredTooLarge(maxBodyBytes: number): RequestHandler {
  return (req, res, next) => {
    // Node's parser admits only a decimal Content-Length (one value) here.
    if (!(Number(req.get('content-length') ?? 0) > maxBodyBytes)) return next();
    res.set('Connection', 'close');
    sendProblem(res, problem('BODY_TOO_LARGE', 'the request body exceeds control.max_body_bytes'));
  };
}
