import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { problem, problemFor, sendProblem } from './common/problem.js';

export const notFound: RequestHandler = (req, res) => {
  sendProblem(res, problem('NOT_FOUND', `no ${req.method} ${req.path}`));
};

/**
 * The last middleware: every error becomes a problem+json body. Only internal errors
 * are logged with their stack; a 4xx error may carry the request body (body-parser
 * keeps it on the error), so it is never logged.
 */
export function errorHandler(log: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) return next(err);
    const body = problemFor(err);
    if (body.status >= 500) log.error({ err, method: req.method, path: req.path }, 'control request failed');
    sendProblem(res, body);
  };
}
