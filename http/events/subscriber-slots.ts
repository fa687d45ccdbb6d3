import type { Logger } from 'pino';
import { FullWarning } from '../full-warning.js';
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

/** Counts live subscribers against `limit`. */
export function subscriberSlots(limit: number, log: Logger): SubscriberSlots {
  let held = 0;
  const full = new FullWarning(log, limit, 'live streams full: refusing subscribers until one ends');
  return {
    take() {
      if (held >= limit) {
        full.refused();
        return null;
      }
      held++;
      full.admitted();
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
