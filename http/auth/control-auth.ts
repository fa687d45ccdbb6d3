import type { Logger } from 'pino';
import { keyRing, type Caller, type ControlKey } from '../common/bearer-key.js';
import { AuthThrottle, DEFAULT_AUTH_THROTTLE, type AuthThrottleOptions } from './auth-throttle.js';

/** Why a request's key is not taken: what each face (problem+json, Clash, an upgrade) answers. */
export interface Refusal {
  code: 'UNAUTHORIZED' | 'AUTH_THROTTLED';
  detail: string;
  headers: Record<string, string>;
}

export type AuthResult = { caller: Caller; refusal?: never } | { caller?: never; refusal: Refusal };

/** The one key check of a control listener: every face asks it, so one throttle sees every guess. */
export interface ControlAuth {
  check(presented: string | undefined, remote: string | undefined): AuthResult;
  close(): void;
}

const MISSING: Refusal = {
  code: 'UNAUTHORIZED',
  detail: 'send the API key as "Authorization: Bearer <key>"',
  headers: { 'WWW-Authenticate': 'Bearer realm="weir"' },
};

const WRONG: Refusal = {
  code: 'UNAUTHORIZED',
  detail: 'the API key does not match',
  headers: { 'WWW-Authenticate': 'Bearer realm="weir", error="invalid_token"' },
};

/**
 * Looks a presented key up among `keys`, behind the throttle of wrong keys by remote
 * address (AuthThrottle): a missing key is no guess and is not counted.
 */
export function controlAuth(keys: readonly ControlKey[], log: Logger, opts: Partial<AuthThrottleOptions> = {}): ControlAuth {
  const ring = keyRing(keys);
  const limits = { ...DEFAULT_AUTH_THROTTLE, ...opts };
  const throttle = new AuthThrottle(log, limits, Date.now);
  // Ends quiet episodes with their summary line even when their address never comes back.
  const sweeper = setInterval(() => throttle.sweep(), Math.max(1000, limits.windowMs / 4)).unref();
  return {
    check(presented, remote = 'unknown') {
      const wait = throttle.retryAfterS(remote);
      if (wait !== null) {
        return { refusal: { code: 'AUTH_THROTTLED', detail: `too many wrong keys from this address; try again in ${wait} s`, headers: { 'Retry-After': String(wait) } } };
      }
      if (presented === undefined) return { refusal: MISSING };
      const caller = ring(presented);
      if (caller !== null) return { caller };
      throttle.failed(remote);
      return { refusal: WRONG };
    },
    close: () => clearInterval(sweeper),
  };
}
