/**
 * Most live subscribers held at once, SSE and WebSocket together (256). Each holds a bus
 * subscription, a queue of up to `bufferBytes` and a socket; the next is refused with 503.
 */
export const MAX_SUBSCRIBERS = 256;

/** What the live streams (SSE and WebSocket) let each subscriber hold. */
export interface SubscriberLimits {
  /**
   * Characters of encoded events a subscriber may have waiting for its socket before
   * it is cut off as a slow consumer (the first burst, replay and snapshot, excepted).
   * @defaultValue 8 MiB
   */
  bufferBytes: number;
  /** Milliseconds between keep-alives (SSE comment, WebSocket ping). @defaultValue 15000 */
  heartbeatMs: number;
  /** Milliseconds over which events are gathered into one write. @defaultValue 10 */
  tickMs: number;
}

/** Limits of the live streams: each subscriber's, and how many there may be. */
export interface StreamLimits extends SubscriberLimits {
  /** Subscribers held at once across SSE and WebSocket. @defaultValue MAX_SUBSCRIBERS */
  maxSubscribers: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = {
  bufferBytes: 8 * 1024 * 1024,
  heartbeatMs: 15_000,
  tickMs: 10,
  maxSubscribers: MAX_SUBSCRIBERS,
};
