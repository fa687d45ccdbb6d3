import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import type { AuditRecorder } from '../../actors/control/audit-trail.js';
import type { ControlAuth, Refusal } from '../auth/control-auth.js';
import type { RouteFace } from '../auth/route-scope.js';
import { setCaller } from '../auth/request-caller.js';
import { bearerToken } from '../common/bearer-key.js';
import { sendMessage } from './clash-errors.js';

/** A key refusal in the Clash dialect: mihomo's 401 `Unauthorized`, or 429 for a throttled address. */
export function clashRefusal(refusal: Refusal): { status: number; message: string; headers: Record<string, string> } {
  if (refusal.code === 'AUTH_THROTTLED') return { status: 429, message: refusal.detail, headers: refusal.headers };
  return { status: 401, message: 'Unauthorized', headers: {} };
}

/** A node's key is the Clash secret: `Authorization: Bearer <key>`, through the listener's one key check. */
export function clashAuth(auth: ControlAuth): RequestHandler {
  return (req, res, next) => {
    const result = auth.check(bearerToken(req.get('authorization')), req.socket.remoteAddress);
    if (result.caller) {
      setCaller(res, result.caller);
      return next();
    }
    const { status, message, headers } = clashRefusal(result.refusal);
    sendMessage(res.set(headers), status, message);
  };
}

/**
 * The key check of a WebSocket upgrade: a non-empty `?token=` (browsers cannot set
 * headers on a WebSocket) is taken instead of the header, as mihomo does. Every key
 * reads the streams.
 */
export function upgradeRefusal(auth: ControlAuth, req: IncomingMessage, url: URL): Refusal | undefined {
  const token = url.searchParams.get('token');
  return auth.check(token ? token : bearerToken(req.headers.authorization), req.socket.remoteAddress).refusal;
}

/** The Clash routes' face for scoped writes: a refusal as `{message, code}` with the problem's status. */
export function clashFace(audit: AuditRecorder): RouteFace {
  return {
    transport: 'clash',
    audit,
    refuse: (res, body) => void res.status(body.status).json({ message: body.detail, code: body.code }),
  };
}
