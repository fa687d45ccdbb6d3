import type { Logger } from 'pino';
import { FullWarning } from '../../actors/base/full-warning.js';
import { problem, type Problem } from '../common/problem.js';

/**
 * Seconds a refused subscriber is told to wait before trying again: a place frees the
 * moment any subscriber ends, and nothing says when that will be, so the hint is short.
 */
const RETRY_AFTER_S = 5;

/** What holds a place: an SSE stream, an event WebSocket, a Clash stream (WebSocket or chunked). */
export const SUBSCRIBER_KINDS = ['sse', 'ws', 'clash'] as const;
export type SubscriberKind = (typeof SUBSCRIBER_KINDS)[number];

/** The places of live subscribers, one count shared by SSE, WebSocket and the Clash streams. */
export interface SubscriberSlots {
  /** Takes a place and returns what gives it back; null when every place is held. */
  take(kind: SubscriberKind): (() => void) | null;
  /** Places held now, by kind. */
  held(): Record<SubscriberKind, number>;
  /** Counts events a subscriber of `kind` was never sent: it fell behind and was cut off. */
  dropped(kind: SubscriberKind, events: number): void;
  /** Events dropped so far, by kind. */
  droppedTotals(): Record<SubscriberKind, number>;
  /** What a subscriber gets when `take` found no place: the problem and its headers. */
  readonly refusal: { body: Problem; headers: Record<string, string> };
}

const byKind = (): Record<SubscriberKind, number> => ({ sse: 0, ws: 0, clash: 0 });

/** Counts live subscribers against `limit`. */
export function subscriberSlots(limit: number, log: Logger): SubscriberSlots {
  const held = byKind();
  const dropped = byKind();
  let total = 0;
  const full = new FullWarning(log, limit, 'live streams full: refusing subscribers until one ends');
  return {
    take(kind) {
      if (total >= limit) {
        full.refused();
        return null;
      }
      total++;
      held[kind]++;
      full.admitted();
      let released = false;
      return () => {
        if (released) return;
        released = true;
        total--;
        held[kind]--;
      };
    },
    held: () => ({ ...held }),
    dropped(kind, events) {
      dropped[kind] += events;
    },
    droppedTotals: () => ({ ...dropped }),
    refusal: {
      body: problem('TOO_MANY_SUBSCRIBERS', `the live streams hold ${limit} subscribers, their most; try again when one ends`),
      headers: { 'Retry-After': String(RETRY_AFTER_S) },
    },
  };
}
