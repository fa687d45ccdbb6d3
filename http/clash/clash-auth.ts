import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { bearerToken, type KeyCheck } from '../common/bearer-key.js';
import { sendMessage } from './clash-errors.js';

/** The node's API key is the Clash secret: `Authorization: Bearer <key>`, compared in constant time. */
export function clashAuth(check: KeyCheck): RequestHandler {
  return (req, res, next) => {
    if (check(bearerToken(req.get('authorization')))) return next();
    sendMessage(res, 401, 'Unauthorized');
  };
}

/**
 * Whether a WebSocket upgrade carries the key: a non-empty `?token=` (browsers cannot
 * set headers on a WebSocket) is taken instead of the header, as mihomo does.
 */
export function upgradeAuthorized(check: KeyCheck, req: IncomingMessage, url: URL): boolean {
  const token = url.searchParams.get('token');
  return check(token ? token : bearerToken(req.headers.authorization));
}
