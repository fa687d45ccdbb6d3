import type { IncomingMessage } from 'node:http';
import type { FlowAuth } from '../../streams/contract.js';
import { NO_AUTH, userAuth, verifyUser } from '../contracts/credentials.js';
import { noteAuthFailure } from './auth-failure.js';
import type { InboundEnv } from './inbound-env.js';
import { peerOf } from './tcp-listener.js';

/** The user name and password of a `Proxy-Authorization: Basic` header; null without a readable one. */
function basicCredentials(req: IncomingMessage): { username: string; password: Buffer } | null {
  const header = req.headers['proxy-authorization'];
  const match = typeof header === 'string' ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64');
  const colon = decoded.indexOf(0x3a);
  return colon < 0 ? null : { username: decoded.toString('utf8', 0, colon), password: decoded.subarray(colon + 1) };
}

/**
 * Checks `Proxy-Authorization: Basic` against the inbound's accounts. Returns the
 * flow's auth, or null when the request must be answered 407; a refusal of credentials
 * the client offered is logged (one without any is only asked for them).
 */
export function proxyAuth(env: InboundEnv, req: IncomingMessage): FlowAuth | null {
  const users = env.users;
  if (!users || users.length === 0) return NO_AUTH;
  const offered = basicCredentials(req);
  const user = offered && verifyUser(users, offered.username, offered.password);
  if (user) return userAuth('http_basic', user);
  if (req.headers['proxy-authorization'] !== undefined) noteAuthFailure(env, peerOf(req.socket), offered?.username ?? null);
  return null;
}
