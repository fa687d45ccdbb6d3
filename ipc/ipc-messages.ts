import type { ControlErrorCode } from '../actors/control/control-error.js';
import type { StatsSnapshot } from '../streams/contract.js';

// The lines of the IPC channel: newline-delimited JSON, one request per line and
// exactly one reply line per request (a subscribe's reply is its ACK; the envelopes
// that follow are the stream, not replies).

/** Echoed on the reply when the request carried it. */
export type RequestId = string | number;

/** Codes an IPC error line carries: the control registry's, plus the channel's own. */
export type IpcErrorCode = ControlErrorCode | 'SLOW_CONSUMER' | 'LINE_TIMEOUT' | 'TOO_MANY_CONNECTIONS';

/** Largest request line the server reads (1 MiB); a longer one ends the connection. */
export const MAX_LINE_BYTES = 1_048_576;

/** Ms a request line may take from its first byte to its newline (30 s); a slower one ends the connection. */
export const LINE_TIMEOUT_MS = 30_000;

/**
 * Most connections the channel holds at once (256). Each holds ~80 KiB even idle (7,000
 * idle clients: ~580 MB); the next one is told TOO_MANY_CONNECTIONS and ended.
 */
export const MAX_CONNECTIONS = 256;

export type IpcRequest =
  | { kind: 'subscribe'; id?: RequestId; events: string[] | null }
  | { kind: 'stats'; id?: RequestId }
  | {
      kind: 'op';
      id?: RequestId;
      op: string;
      /** The operation's fields: the message without `op` and `id`. */
      body: Readonly<Record<string, unknown>>;
    };

export interface IpcAck {
  type: 'ack';
  id?: RequestId;
  /** The whitelist in force; `["*"]` for all events. */
  subscribed: string[];
}

export interface IpcStatsReply {
  type: 'stats';
  id?: RequestId;
  stats: StatsSnapshot;
}

export interface IpcResult {
  type: 'result';
  id?: RequestId;
  op: string;
  result: unknown;
}

export interface IpcErrorReply {
  type: 'error';
  id?: RequestId;
  code: IpcErrorCode;
  message: string;
  details?: unknown;
}

export type IpcReply = IpcAck | IpcStatsReply | IpcResult | IpcErrorReply;

/** A result already in JSON (a listing written a slice at a time): it goes into the reply line as it is. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** The reply's line, without its newline. */
export function replyJson(reply: IpcReply): string {
  if (reply.type !== 'result' || !(reply.result instanceof RawJson)) return JSON.stringify(reply);
  const { result, ...rest } = reply;
  return `${JSON.stringify(rest).slice(0, -1)},"result":${result.text}}`;
}

/** Adds `id` only when there is one, so a reply to an id-less request has no `id` key. */
export function withId<R extends IpcReply>(reply: R, id: RequestId | undefined): R {
  return id === undefined ? reply : { ...reply, id };
}
