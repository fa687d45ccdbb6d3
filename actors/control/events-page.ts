import type { EventBus, SequenceRange } from '../../streams/event-bus.js';
import { resumeFrom } from '../../streams/subscription.js';
import { typeFilter } from '../../streams/type-filter.js';

const EVENTS_OPEN = Buffer.from('{"events":[');
const COMMA = Buffer.from(',');

export interface EventsPageQuery {
  since?: number;
  /** Events at most. @defaultValue 1000 */
  limit?: number;
  types?: readonly string[] | null;
}

/**
 * Replay from the ring (never flow.snapshot: it is not in the ring): the JSON body
 * `{ events, oldest_sequence, last_sequence, replay_gap }`, its events copied out of
 * the ring as stored, and the replay gap apart for a header. The gap is named only
 * for a `since` given: without one the caller asked for what the ring holds, not to
 * resume. The events are copied as stored rather than parsed into envelopes and
 * serialized again: a full page (10,000 flow.completed) would hold the event loop, and
 * so every relay, for hundreds of ms.
 */
export function eventsPageJson(bus: EventBus, q: EventsPageQuery): { json: Buffer; gap: SequenceRange | null } {
  // As the live streams resume it (resumeFrom): a since beyond the last sequence is from before a lost state dir.
  const since = q.since === undefined ? undefined : resumeFrom(bus, q.since);
  const gap = since === undefined ? null : bus.lostAfter(since);
  const parts: Buffer[] = [EVENTS_OPEN];
  for (const json of bus.replayBytes(since ?? 0, typeFilter(q.types), q.limit ?? 1000)) {
    if (parts.length > 1) parts.push(COMMA);
    parts.push(json);
  }
  parts.push(
    Buffer.from(`],"oldest_sequence":${JSON.stringify(bus.oldestSequence)},"last_sequence":${bus.lastSequence},"replay_gap":${JSON.stringify(gap)}}`),
  );
  return { json: Buffer.concat(parts), gap };
}
