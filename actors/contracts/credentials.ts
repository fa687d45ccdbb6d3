import { createHash, timingSafeEqual } from 'node:crypto';
import type { FlowAuth } from '../../streams/contract.js';

/** An account of an inbound, SOCKS5 or HTTP Basic; `password` is the revealed secret. `principal` overrides the username as principal_key. */
export interface InboundAccount {
  username: string;
  password: string;
  principal?: string;
}

/**
 * Finds the account for a username/password pair. The password is compared even for
 * an unknown user, and through digests of equal length, so neither the password's
 * content nor its length shows in the timing.
 */
export function verifyUser(users: readonly InboundAccount[], username: string, password: Buffer): InboundAccount | null {
  const user = users.find((u) => u.username === username);
  const matches = sameSecret(password, Buffer.from(user?.password ?? '', 'utf8'));
  return user !== undefined && matches ? user : null;
}

function sameSecret(given: Buffer, expected: Buffer): boolean {
  const digest = (b: Buffer): Buffer => createHash('sha256').update(b).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** The auth of a flow by an account: never the password, only who it is. */
export function userAuth(scheme: string, user: InboundAccount): FlowAuth {
  return { scheme, principal_key: user.principal ?? user.username, attributes: { username: user.username } };
}

export const NO_AUTH: FlowAuth = Object.freeze({ scheme: 'noauth', principal_key: null, attributes: Object.freeze({}) }) as FlowAuth;
