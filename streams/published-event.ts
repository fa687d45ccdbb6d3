import type { Envelope, EventType } from './contract.js';

/** Where event_id's text starts: schema_id is the envelope's first field and a constant. */
const EVENT_ID_AT = '{"schema_id":"node.event.v1","event_id":"'.length;
/** The key before source_id's value. */
const SOURCE_KEY = ',"source_id":';

/**
 * One event as the bus hands it out: the envelope's JSON, made once at publish and
 * shared by every consumer (SSE, WebSocket, IPC, sinks) instead of serialized by each.
 */
export class PublishedEvent<P extends object = object> {
  constructor(
    readonly sequence: number,
    readonly event_type: EventType,
    /** The envelope JSON as live consumers get it: source_id null. */
    readonly json: string,
    /** Offset of source_id's `null` in json. */
    readonly sourceAt: number,
  ) {}

  /**
   * Serializes an envelope whose source_id is null; `payloadJson`, when given, is the
   * payload's JSON made by its publisher (flow events: FlowJson) and is used as is.
   */
  static of<P extends object>(envelope: Envelope<P>, payloadJson?: string): PublishedEvent<P> {
    if (envelope.source_id !== null) throw new TypeError('a published envelope has source_id null; sinks add theirs');
    // The envelope's fields in the contract's order, written out so source_id's place is known.
    const head =
      `{"schema_id":${JSON.stringify(envelope.schema_id)},"event_id":${JSON.stringify(envelope.event_id)}` +
      `,"event_type":${JSON.stringify(envelope.event_type)},"occurred_at_unix_ms":${JSON.stringify(envelope.occurred_at_unix_ms)}${SOURCE_KEY}`;
    const json =
      `${head}null,"sequence":${JSON.stringify(envelope.sequence)},"principal_key":${JSON.stringify(envelope.principal_key)}` +
      `,"labels":${JSON.stringify(envelope.labels)},"payload":${payloadJson ?? JSON.stringify(envelope.payload)}}`;
    return new PublishedEvent<P>(envelope.sequence, envelope.event_type, json, head.length);
  }

  /** Read from the JSON, where it is a plain quoted string (the bus makes ids of [0-9a-z-]). */
  get event_id(): string {
    return this.json.slice(EVENT_ID_AT, this.json.indexOf('"', EVENT_ID_AT));
  }

  /** The envelope as an object, parsed from its JSON: for in-process readers, not the hot path. */
  envelope(): Envelope<P> {
    return JSON.parse(this.json) as Envelope<P>;
  }

  /** The JSON as sinks deliver it: the node id as source_id. */
  withSource(nodeId: string): string {
    return this.withSourceParts(JSON.stringify(nodeId)).join('');
  }

  /** withSource in three parts, for a writer that writes them one after the other without joining. */
  withSourceParts(nodeIdJson: string): [string, string, string] {
    return [this.json.slice(0, this.sourceAt), nodeIdJson, this.json.slice(this.sourceAt + 4)];
  }
}
