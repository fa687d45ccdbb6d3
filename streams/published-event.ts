import { SCHEMA_ID, type Envelope, type EventType } from './contract.js';
import { jsonNumber } from './json-text.js';
import { addString, Pieces } from './text-pieces.js';

/** The envelope's text up to event_id's value: schema_id is its first field and a constant. */
const SCHEMA_HEAD = `{"schema_id":"${SCHEMA_ID}","event_id":`;
/** Where event_id's text starts. */
const EVENT_ID_AT = SCHEMA_HEAD.length + 1;
/** The key before source_id's value. */
const SOURCE_KEY = ',"source_id":';
/** The key before occurred_at_unix_ms's value, which the head holds. */
const OCCURRED_KEY = '"occurred_at_unix_ms":';

/** One list for every envelope's text. */
const envelopePieces = new Pieces();

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
   * payload's JSON made by its publisher, as text or as a writer that adds it (flow
   * events: lifecyclePayloadWriter), and is used as is. The text is joined once
   * (Pieces), so the ring and every consumer get it flat.
   */
  static of<P extends object>(envelope: Envelope<P>, payloadJson?: string | ((out: Pieces) => void)): PublishedEvent<P> {
    if (envelope.source_id !== null) throw new TypeError('a published envelope has source_id null; sinks add theirs');
    let sourceAt = 0;
    const json = envelopePieces.joined((out) => {
      // The envelope's fields in the contract's order, written out so source_id's place is
      // known. schema_id is a constant and event_type one of the contract's names: neither
      // needs escaping, and numbers need no call into JSON.stringify.
      out.add(SCHEMA_HEAD);
      addString(out, envelope.event_id);
      out.add(',"event_type":"');
      out.add(envelope.event_type);
      out.add('","occurred_at_unix_ms":');
      out.add(jsonNumber(envelope.occurred_at_unix_ms));
      out.add(SOURCE_KEY);
      sourceAt = out.length;
      out.add('null,"sequence":');
      out.add(jsonNumber(envelope.sequence));
      out.add(',"principal_key":');
      addString(out, envelope.principal_key);
      out.add(',"labels":');
      out.add(JSON.stringify(envelope.labels));
      out.add(',"payload":');
      if (typeof payloadJson === 'function') payloadJson(out);
      else out.add(payloadJson ?? JSON.stringify(envelope.payload));
      out.add('}');
    });
    return new PublishedEvent<P>(envelope.sequence, envelope.event_type, json, sourceAt);
  }

  /** Read from the JSON, where it is a plain quoted string (the bus makes ids of [0-9a-z-]). */
  get event_id(): string {
    return this.json.slice(EVENT_ID_AT, this.json.indexOf('"', EVENT_ID_AT));
  }

  /** The envelope as an object, parsed from its JSON: for in-process readers, not the hot path. */
  envelope(): Envelope<P> {
    return JSON.parse(this.json) as Envelope<P>;
  }

  /** The JSON as sinks deliver it: `nodeIdJson`, the node id as a JSON string (made once per sink), as source_id. */
  withSource(nodeIdJson: string): string {
    return this.withSourceParts(nodeIdJson).join('');
  }

  /** withSource in three parts, for a writer that writes them one after the other without joining. */
  withSourceParts(nodeIdJson: string): [string, string, string] {
    return [this.json.slice(0, this.sourceAt), nodeIdJson, this.json.slice(this.sourceAt + 4)];
  }
}

/**
 * occurred_at_unix_ms of an envelope's JSON as PublishedEvent writes it (a sink's body
 * too), read from its head without parsing the rest; NaN when it holds none.
 */
export function occurredAtOf(json: string): number {
  const at = json.indexOf(OCCURRED_KEY, EVENT_ID_AT);
  if (at < 0) return NaN;
  const from = at + OCCURRED_KEY.length;
  let to = from;
  for (let c = json.charCodeAt(to); c >= 0x30 && c <= 0x39; c = json.charCodeAt(++to));
  return to > from ? Number(json.slice(from, to)) : NaN;
}
