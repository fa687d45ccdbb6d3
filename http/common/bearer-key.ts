import { createHash, timingSafeEqual } from 'node:crypto';
import type { Secret } from '../../actors/config/secret.js';

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), if any. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const m = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header);
  return m?.[1];
}

export type KeyCheck = (presented: string | undefined) => boolean;

/** SHA-256 of a presented or expected secret: equal lengths for timingSafeEqual whatever was sent. */
export function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * A constant-time comparison against the API key. Both sides are hashed first, so
 * the comparison takes the same time whatever the presented length.
 */
export function keyCheck(apiKey: Secret): KeyCheck {
  const expected = digest(apiKey.reveal());
  return (presented) => presented !== undefined && timingSafeEqual(digest(presented), expected);
}

/** Why a request is refused, or null when its key is right. */
export function keyRefusal(check: KeyCheck, presented: string | undefined): { detail: string; challenge: string } | null {
  if (presented === undefined) {
    return { detail: 'send the API key as "Authorization: Bearer <key>"', challenge: 'Bearer realm="weir"' };
  }
  if (check(presented)) return null;
  return { detail: 'the API key does not match', challenge: 'Bearer realm="weir", error="invalid_token"' };
}
