import type { RequestHandler } from 'express';
import type { ControlAuth } from './auth/control-auth.js';
import { setCaller } from './auth/request-caller.js';
import { bearerToken } from './common/bearer-key.js';
import { problem, sendProblem } from './common/problem.js';

/**
 * Refuses every request without a known Bearer key: 401 problem with a
 * WWW-Authenticate challenge, 429 for an address throttled after wrong keys. The
 * caller is kept for the routes' scope checks and the audit trail.
 */
export function requireKey(auth: ControlAuth): RequestHandler {
  return (req, res, next) => {
    const result = auth.check(bearerToken(req.get('authorization')), req.socket.remoteAddress);
    if (result.caller) {
      setCaller(res, result.caller);
      return next();
    }
    sendProblem(res.set(result.refusal.headers), problem(result.refusal.code, result.refusal.detail));
  };
}
