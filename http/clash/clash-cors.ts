import type { RequestHandler } from 'express';

const ALLOW_METHODS = 'GET, POST, PUT, PATCH, DELETE';
const ALLOW_HEADERS = 'Content-Type, Authorization';
const MAX_AGE_S = '300';

/**
 * CORS as mihomo answers it (any origin), before authentication: a dashboard served
 * from another origin sends `Authorization` and `Content-Type: application/json`, so
 * every call is preflighted, and the preflight carries no key. Every answer, a 401
 * too, names the origin allowed, so a dashboard can tell a wrong secret from a node
 * it cannot reach. The key itself still guards every non-preflight request.
 */
export const clashCors: RequestHandler = (req, res, next) => {
  res.set('Access-Control-Allow-Origin', '*');
  res.vary('Origin');
  const preflight = req.method === 'OPTIONS' && req.get('access-control-request-method') !== undefined;
  if (!preflight) return next();
  res.set({
    'Access-Control-Allow-Methods': ALLOW_METHODS,
    'Access-Control-Allow-Headers': ALLOW_HEADERS,
    'Access-Control-Max-Age': MAX_AGE_S,
  });
  // Chrome's Private Network Access: a dashboard on a public origin calling a loopback node.
  if (req.get('access-control-request-private-network') === 'true') res.set('Access-Control-Allow-Private-Network', 'true');
  res.status(204).end();
};
