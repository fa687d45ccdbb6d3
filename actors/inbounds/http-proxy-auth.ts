import type { IncomingMessage } from 'node:http';
import type { FlowAuth } from '../../streams/contract.js';
import { NO_AUTH, userAuth, verifyUser } from './credentials.js';
import type { Socks5User } from './socks5-handshake.js';

/**
 * Checks `Proxy-Authorization: Basic` against the inbound's accounts. Returns the
 * flow's auth, or null when the request must be answered 407.
 */
export function proxyAuth(req: IncomingMessage, users: readonly Socks5User[] | null): FlowAuth | null {
  if (!users || users.length === 0) return NO_AUTH;
  const header = req.headers['proxy-authorization'];
  const match = typeof header === 'string' ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header) : null;
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, 'base64');
  const colon = decoded.indexOf(0x3a);
  if (colon < 0) return null;
  const user = verifyUser(users, decoded.toString('utf8', 0, colon), decoded.subarray(colon + 1));
  return user ? userAuth('http_basic', user) : null;
}
