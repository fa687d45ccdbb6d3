import { createHmac, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Secret } from '../actors/config/secret.js';
import type { ControlAuth } from './auth/control-auth.js';
import { bearerToken, digest } from './common/bearer-key.js';
import { problem, sendProblem } from './common/problem.js';

const COOKIE = 'weir_dashboard';

/**
 * The dashboard is a browser page, which cannot send a Bearer header: it takes the
 * API key once as `?token=`, then a cookie holding an HMAC derived from the key (never
 * the key itself), HttpOnly and SameSite=Strict. A Bearer header works as everywhere.
 * Any key opens it (the board only reads), through the listener's one key check.
 */
export function dashboardAuth(apiKey: Secret, auth: ControlAuth, mountPath: string): RequestHandler {
  const session = createHmac('sha256', apiKey.reveal()).update('weir dashboard session').digest('base64url');
  // Compared as digests: a cookie of non-ASCII characters has as many characters as the
  // session but more UTF-8 bytes, which made timingSafeEqual throw (a 500 and an error log).
  const expected = digest(session);
  const sessionOk = (value: string | undefined): boolean => value !== undefined && timingSafeEqual(digest(value), expected);
  return (req, res, next) => {
    if (sessionOk(cookieValue(req.get('cookie')))) return next();
    const header = bearerToken(req.get('authorization'));
    const token = typeof req.query['token'] === 'string' ? req.query['token'] : undefined;
    const result = auth.check(header ?? token, req.socket.remoteAddress);
    if (result.caller && header !== undefined) return next();
    if (result.caller) {
      res.cookie(COOKIE, session, { httpOnly: true, sameSite: 'strict', path: mountPath });
      return res.redirect(303, mountPath);
    }
    if (result.refusal.code === 'AUTH_THROTTLED') return sendProblem(res.set(result.refusal.headers), problem(result.refusal.code, result.refusal.detail));
    res.set('WWW-Authenticate', 'Bearer realm="weir"');
    sendProblem(res, problem('UNAUTHORIZED', `open ${mountPath}?token=<API key> once, or send "Authorization: Bearer <key>"`));
  };
}

function cookieValue(header: string | undefined): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === COOKIE) return value.join('=');
  }
  return undefined;
}
