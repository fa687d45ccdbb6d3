import { createHmac, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Secret } from '../actors/config/secret.js';
import { bearerToken, digest, type KeyCheck } from './common/bearer-key.js';
import { problem, sendProblem } from './common/problem.js';

const COOKIE = 'weir_dashboard';

/**
 * The dashboard is a browser page, which cannot send a Bearer header: it takes the
 * API key once as `?token=`, then a cookie holding an HMAC derived from the key (never
 * the key itself), HttpOnly and SameSite=Strict. A Bearer header works as everywhere.
 */
export function dashboardAuth(apiKey: Secret, check: KeyCheck, mountPath: string): RequestHandler {
  const session = createHmac('sha256', apiKey.reveal()).update('weir dashboard session').digest('base64url');
  // Compared as digests: a cookie of non-ASCII characters has as many characters as the
  // session but more UTF-8 bytes, which made timingSafeEqual throw (a 500 and an error log).
  const expected = digest(session);
  const sessionOk = (value: string | undefined): boolean => value !== undefined && timingSafeEqual(digest(value), expected);
  return (req, res, next) => {
    if (check(bearerToken(req.get('authorization'))) || sessionOk(cookieValue(req.get('cookie')))) return next();
    const token = typeof req.query['token'] === 'string' ? req.query['token'] : undefined;
    if (check(token)) {
      res.cookie(COOKIE, session, { httpOnly: true, sameSite: 'strict', path: mountPath });
      return res.redirect(303, mountPath);
    }
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
