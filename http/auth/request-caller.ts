import type { Response } from 'express';
import type { Caller } from '../common/bearer-key.js';

// What the authentication middleware learnt of a request, kept on the response for the
// routes after it: the caller (for the scope check and the audit trail).

const CALLER = 'weirCaller';

export function setCaller(res: Response, caller: Caller): void {
  res.locals[CALLER] = caller;
}

/** The request's caller; null when no authentication ran (a route the key check does not cover). */
export function callerOf(res: Response): Caller | null {
  return (res.locals[CALLER] as Caller | undefined) ?? null;
}
