import { createHash, timingSafeEqual } from 'node:crypto';
import { API_KEY_ID, type Scope } from '../../actors/config/schema-control.js';
import type { Secret } from '../../actors/config/secret.js';

/** The token of an `Authorization: Bearer <token>` header (scheme case-insensitive), if any. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const m = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header);
  return m?.[1];
}

/** Who a key names: its id (for the audit trail) and what it may do. */
export interface Caller {
  key_id: string;
  scope: Scope;
}

/** A key of the control plane as the config gives it. */
export interface ControlKey {
  id: string;
  key: Secret;
  scope: Scope;
}

/** The caller a presented key names, or null for none. */
export type KeyRing = (presented: string | undefined) => Caller | null;

/** SHA-256 of a presented or expected secret: equal lengths for timingSafeEqual whatever was sent. */
export function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * Constant-time lookup of a presented key among the configured ones. Both sides are
 * hashed first, so a comparison takes the same time whatever the presented length,
 * and every key is compared, so the time does not tell which one matched.
 */
export function keyRing(keys: readonly ControlKey[]): KeyRing {
  const entries = keys.map((k) => ({ caller: { key_id: k.id, scope: k.scope }, expected: digest(k.key.reveal()) }));
  return (presented) => {
    if (presented === undefined) return null;
    const sent = digest(presented);
    let found: Caller | null = null;
    for (const e of entries) if (timingSafeEqual(sent, e.expected)) found = e.caller;
    return found;
  };
}

/** The keys of `control`: `api_key` (admin, id `api_key`) and each of `keys`. */
export function controlKeys(control: { api_key: Secret; keys: readonly ControlKey[] }): ControlKey[] {
  return [{ id: API_KEY_ID, key: control.api_key, scope: 'admin' }, ...control.keys];
}
