import type { SequenceRange } from '../../streams/event-bus.js';
import type { PublishedEvent } from '../../streams/published-event.js';

/** Code of the last frame or close reason a subscriber gets when it falls behind. */
export const SLOW_CONSUMER = 'SLOW_CONSUMER';

export type Encoder = (e: PublishedEvent) => string;

/**
 * One SSE frame; the id is the sequence (a flow.snapshot's is its watermark). JSON holds
 * no raw newline. The envelope JSON is the bus's, shared: a frame is only its wrapping.
 */
export const sseFrame: Encoder = (e) => `id: ${e.sequence}\nevent: ${e.event_type}\ndata: ${e.json}\n\n`;

/** One WebSocket text message: the envelope JSON. */
export const wsMessage: Encoder = (e) => e.json;

export const SSE_KEEP_ALIVE = ': keep-alive\n\n';

/**
 * The comment that opens a stream whose `since` is older than the replay ring, before
 * the replayed frames: EventSource skips it, a raw reader (curl, a controller) sees
 * the gap there as well as in the response header.
 */
export function sseReplayGapComment(gap: SequenceRange): string {
  return `: replay_gap from_sequence=${gap.from_sequence} to_sequence=${gap.to_sequence}\n\n`;
}

/** The last SSE frame of a subscriber that fell behind; it has no id, so Last-Event-ID stays the last event. */
export function sseSlowConsumerFrame(resumeFrom: number): string {
  return `event: error\ndata: ${JSON.stringify({ code: SLOW_CONSUMER, resume_from: resumeFrom })}\n\n`;
}

/** The close reason of a WebSocket subscriber that fell behind (well under the 123-byte limit). */
export function wsSlowConsumerReason(resumeFrom: number): string {
  return `slow consumer; resume with since=${resumeFrom}`;
}
