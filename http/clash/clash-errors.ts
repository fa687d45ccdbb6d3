import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { ControlError } from '../../actors/control/control-error.js';
import { problemFor } from '../common/problem.js';
import { WeirError } from '../../actors/errors/weir-error.js';

/**
 * A refusal in the Clash dialect: `{"message": string}` with the status mihomo gives
 * it. Dashboards show the message and branch on the status.
 */
export class ClashError extends WeirError<'CLASH_REFUSED'> {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super('CLASH_REFUSED', message);
  }
}

/** mihomo's words for a request it cannot read (`render.DecodeJSON` failing, a bad parameter). */
export const BODY_INVALID = 'Body invalid';

export function sendMessage(res: Response, status: number, message: string): void {
  res.status(status).json({ message });
}

export const clashNotFound: RequestHandler = (_req, res) => sendMessage(res, 404, 'Resource not found');

/**
 * The Clash routes' last middleware: a ClashError as it is, a ControlError with its
 * own words and status, anything else through problemFor (so an internal error or a
 * body parser's message is never echoed).
 */
export function clashErrorHandler(log: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) return next(err);
    if (err instanceof ClashError) return sendMessage(res, err.status, err.message);
    if (err instanceof ControlError) return sendMessage(res, err.status, err.message);
    const problem = problemFor(err);
    if (problem.status >= 500) log.error({ err, method: req.method, path: req.path }, 'clash request failed');
    sendMessage(res, problem.status, problem.status === 400 ? BODY_INVALID : problem.detail);
  };
}
