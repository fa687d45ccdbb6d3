import { SCHEMA_ID, type Envelope, type EventType } from '../../streams/contract.js';
import { PublishedEvent } from '../../streams/published-event.js';

/** A published event as the bus makes it, with the envelope fields a spec cares about. */
export function published(
  sequence: number,
  event_type: EventType,
  payload: object = {},
  labels: Envelope['labels'] = {},
): PublishedEvent {
  return PublishedEvent.of({
    schema_id: SCHEMA_ID,
    event_id: `e-${sequence}`,
    event_type,
    occurred_at_unix_ms: 1,
    source_id: null,
    sequence,
    principal_key: null,
    labels,
    payload,
  });
}
