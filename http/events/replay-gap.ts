import type { SequenceRange } from '../../streams/event-bus.js';

/**
 * The response header of a resume (SSE, the WebSocket's upgrade, GET /api/v1/events)
 * whose `since` is older than the replay ring: `<from_sequence>-<to_sequence>`, the
 * sequences it can no longer be given. A header, because the streams' frames carry
 * only envelopes and the contract has no event type for it; absent when nothing is lost.
 */
export const REPLAY_GAP_HEADER = 'Weir-Replay-Gap';

export function replayGapHeaders(gap: SequenceRange | null): Record<string, string> {
  return gap ? { [REPLAY_GAP_HEADER]: `${gap.from_sequence}-${gap.to_sequence}` } : {};
}
