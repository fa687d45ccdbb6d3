import type { RequestHandler } from 'express';
import { bearerToken, keyRefusal, type KeyCheck } from './common/bearer-key.js';
import { problem, sendProblem } from './common/problem.js';

/** Refuses every request without the right Bearer key: 401 problem with a WWW-Authenticate challenge. */
export function requireKey(check: KeyCheck): RequestHandler {
  return (req, res, next) => {
    const refusal = keyRefusal(check, bearerToken(req.get('authorization')));
    if (refusal === null) return next();
    res.set('WWW-Authenticate', refusal.challenge);
    sendProblem(res, problem('UNAUTHORIZED', refusal.detail));
  };
}
