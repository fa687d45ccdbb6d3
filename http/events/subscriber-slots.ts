import type { Logger } from 'pino';
import { problem, type Problem } from '../problem.js';

/**
 * Seconds a refused subscriber is told to wait before trying again: a place frees the
 * moment any subscriber ends, and nothing says when that will be, so the hint is short.
 */
const RETRY_AFTER_S = 5;

/** The places of live subscribers, one count shared by SSE and WebSocket. */
export interface SubscriberSlots {
  /** Takes a place and returns what gives it back; null when every place is held. */
  take(): (() => void) | null;
  /** What a subscriber gets when `take` found no place: the problem and its headers. */
  readonly refusal: { body: Problem; headers: Record<string, string> };
}

/**
 * Counts live subscribers against `limit`. Warns once each time every place is held
 * rather than once per refused subscriber, like the IPC channel's refuser.
 */
export function subscriberSlots(limit: number, log: Logger): SubscriberSlots {
  let held = 0;
  let warned = false;
  return {
    take() {
      if (held >= limit) {
        if (!warned) log.warn({ limit }, 'live streams full: refusing subscribers until one ends');
        warned = true;
        return null;
      }
      held++;
      warned = false;
      return () => {
        held--;
      };
    },
    refusal: {
      body: problem('TOO_MANY_SUBSCRIBERS', `the live streams hold ${limit} subscribers, their most; try again when one ends`),
      headers: { 'Retry-After': String(RETRY_AFTER_S) },
    },
  };
}
