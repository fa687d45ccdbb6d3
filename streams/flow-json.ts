import { jsonNumber } from './json-text.js';
import { addString as str, Pieces } from './text-pieces.js';
import type {
  Endpoint,
  FlowAuth,
  FlowLifecyclePayload,
  FlowPath,
  FlowRecord,
  FlowResult,
  FlowRoute,
  FlowSource,
  FlowTarget,
  FlowThroughput,
  FlowTiming,
  FlowTraffic,
  RelayHop,
  TagProtocol,
} from './contract.js';

// Writers for the parts of a record, each field of its type written in the type's key
// order into one list of pieces that is joined once (Pieces). Optional fields are left
// out when undefined, as JSON.stringify does.

type Out = Pieces;

function num(out: Out, value: number | null): void {
  out.add(jsonNumber(value));
}

/** `key` (the text before the value: a comma or brace, the quoted name, a colon), then the value. */
function strField(out: Out, key: string, value: string | null): void {
  out.add(key);
  str(out, value);
}

function numField(out: Out, key: string, value: number | null): void {
  out.add(key);
  num(out, value);
}

/** `key`, then the object's JSON by `write`, or null. */
function objField<T>(out: Out, key: string, value: T | null, write: (out: Out, value: T) => void): void {
  out.add(key);
  if (value === null) out.add('null');
  else write(out, value);
}

function list<T>(out: Out, items: readonly T[], write: (out: Out, item: T) => void): void {
  out.add('[');
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out.add(',');
    write(out, items[i] as T);
  }
  out.add(']');
}

function optionalStr(out: Out, key: string, value: string | undefined): void {
  if (value !== undefined) strField(out, key, value);
}

function tagProtocolJson(out: Out, t: TagProtocol): void {
  strField(out, '{"tag":', t.tag);
  strField(out, ',"protocol":', t.protocol);
  out.add('}');
}

function endpointJson(out: Out, e: Endpoint): void {
  strField(out, '{"host":', e.host);
  numField(out, ',"port":', e.port);
  out.add('}');
}

function sourceJson(out: Out, s: FlowSource): void {
  strField(out, '{"ip":', s.ip);
  numField(out, ',"port":', s.port);
  if (s.process_id !== undefined) numField(out, ',"process_id":', s.process_id);
  optionalStr(out, ',"process_name":', s.process_name);
  optionalStr(out, ',"process_path":', s.process_path);
  out.add('}');
}

function targetJson(out: Out, t: FlowTarget): void {
  strField(out, '{"host":', t.host);
  numField(out, ',"port":', t.port);
  optionalStr(out, ',"resolved_ip":', t.resolved_ip);
  optionalStr(out, ',"sniffed_host":', t.sniffed_host);
  out.add('}');
}

function routeJson(out: Out, r: FlowRoute): void {
  strField(out, '{"mode":', r.mode);
  strField(out, ',"action":', r.action);
  strField(out, ',"target":', r.target);
  out.add(',"matched_rule":');
  const rule = r.matched_rule;
  if (rule) {
    numField(out, '{"index":', rule.index);
    strField(out, ',"condition":', rule.condition);
    out.add('}');
  } else out.add('null');
  out.add(',"selection_chain":');
  list(out, r.selection_chain, str);
  out.add('}');
}

function hopJson(out: Out, h: RelayHop): void {
  strField(out, '{"tag":', h.tag);
  strField(out, ',"protocol":', h.protocol);
  strField(out, ',"server":', h.server);
  numField(out, ',"port":', h.port);
  out.add('}');
}

function pathJson(out: Out, p: FlowPath): void {
  objField(out, '{"outbound":', p.outbound, tagProtocolJson);
  objField(out, ',"remote":', p.remote, endpointJson);
  out.add(',"relay_chain":');
  list(out, p.relay_chain, hopJson);
  out.add('}');
}

function authJson(out: Out, a: FlowAuth): void {
  strField(out, '{"scheme":', a.scheme);
  strField(out, ',"principal_key":', a.principal_key);
  out.add(',"attributes":{');
  let first = true;
  for (const key of Object.keys(a.attributes)) {
    if (!first) out.add(',');
    first = false;
    str(out, key);
    strField(out, ':', a.attributes[key] as string);
  }
  out.add('}}');
}

function resultJson(out: Out, r: FlowResult): void {
  strField(out, '{"outcome":', r.outcome);
  strField(out, ',"close_reason":', r.close_reason);
  out.add(',"failure":');
  const f = r.failure;
  if (f) {
    strField(out, '{"stage":', f.stage);
    strField(out, ',"code":', f.code);
    strField(out, ',"message":', f.message);
    if (f.remote) objField(out, ',"remote":', f.remote, endpointJson);
    out.add('}');
  } else out.add('null');
  out.add('}');
}

/** An object of numbers written by a fixed list of keys: each key's text (`{"key":`, then `,"key":`) made once. */
type NumberFields<T> = readonly (readonly [text: string, key: keyof T])[];

function numberFields<T>(keys: readonly (keyof T & string)[]): NumberFields<T> {
  return keys.map((key, i) => [`${i === 0 ? '{' : ','}"${key}":`, key] as const);
}

function numbersJson<T>(out: Out, fields: NumberFields<T>, value: T): void {
  for (const [text, key] of fields) numField(out, text, value[key] as number | null);
  out.add('}');
}

const TRAFFIC = numberFields<FlowTraffic>([
  'bytes_up',
  'bytes_down',
  'inbound_rx_bytes',
  'inbound_tx_bytes',
  'outbound_rx_bytes',
  'outbound_tx_bytes',
  'packets_up',
  'packets_down',
]);
/** The legacy payload's traffic before flow.completed: four of the counters. */
const LEGACY_TRAFFIC = numberFields<FlowTraffic>(['bytes_up', 'bytes_down', 'packets_up', 'packets_down']);
const THROUGHPUT = numberFields<FlowThroughput>(['upload_bps', 'download_bps', 'sampled_at_unix_ms']);
const TIMING = numberFields<FlowTiming>(['started_at_unix_ms', 'last_activity_at_unix_ms', 'ended_at_unix_ms', 'duration_ms']);
const LEGACY_TIMING = numberFields<FlowLifecyclePayload['timing']>(['started_at_unix_ms', 'ended_at_unix_ms', 'duration_ms']);

const trafficJson = (out: Out, t: FlowTraffic): void => numbersJson(out, TRAFFIC, t);
const throughputJson = (out: Out, t: FlowThroughput): void => numbersJson(out, THROUGHPUT, t);
const timingJson = (out: Out, t: FlowTiming): void => numbersJson(out, TIMING, t);
const legacyTimingJson = (out: Out, t: FlowLifecyclePayload['timing']): void => numbersJson(out, LEGACY_TIMING, t);

/** The legacy payload's traffic: the whole counters at flow.completed, four of them before. */
function legacyTrafficJson(out: Out, t: FlowLifecyclePayload['traffic']): void {
  numbersJson(out, t.inbound_rx_bytes === undefined ? LEGACY_TRAFFIC : TRAFFIC, t as FlowTraffic);
}

function recordJson(out: Out, r: FlowRecord): void {
  strField(out, '{"flow_id":', r.flow_id);
  numField(out, ',"revision":', r.revision);
  strField(out, ',"state":', r.state);
  strField(out, ',"network":', r.network);
  objField(out, ',"inbound":', r.inbound, tagProtocolJson);
  if (r.source) objField(out, ',"source":', r.source, sourceJson);
  objField(out, ',"target":', r.target, targetJson);
  objField(out, ',"route":', r.route, routeJson);
  objField(out, ',"path":', r.path, pathJson);
  objField(out, ',"traffic":', r.traffic, trafficJson);
  objField(out, ',"throughput":', r.throughput, throughputJson);
  objField(out, ',"timing":', r.timing, timingJson);
  if (r.result) objField(out, ',"result":', r.result, resultJson);
  out.add('}');
}

function lifecycleJson(out: Out, p: FlowLifecyclePayload): void {
  strField(out, '{"flow_id":', p.flow_id);
  strField(out, ',"network":', p.network);
  objField(out, ',"inbound":', p.inbound, tagProtocolJson);
  objField(out, ',"auth":', p.auth, authJson);
  objField(out, ',"target":', p.target, endpointJson);
  strField(out, ',"route":{"mode":', p.route.mode);
  strField(out, ',"target":', p.route.target);
  objField(out, '},"policy":null,"outbound":', p.outbound, tagProtocolJson);
  objField(out, ',"traffic":', p.traffic, legacyTrafficJson);
  objField(out, ',"timing":', p.timing, legacyTimingJson);
  strField(out, ',"outcome":', p.outcome);
  if (p.close_reason) strField(out, ',"close_reason":', p.close_reason);
  objField(out, ',"record":', p.record, recordJson);
  out.add('}');
}

/** One list for every text: a writer runs to its end in one call and never starts another text. */
const pieces = new Pieces();

/**
 * A flow record's JSON, written by hand: serialization was the largest single item of
 * weir's own work per flow, and JSON.stringify walks these small objects generically.
 * Every field of the types is written; flow-json.spec holds each writer to
 * JSON.stringify's output on fully populated values.
 */
export function flowRecordJson(record: FlowRecord): string {
  return pieces.joined((out) => recordJson(out, record));
}

/** What adds a flow.started, flow.routed or flow.completed payload's JSON to a text (the envelope's), as flowRecordJson writes. */
export function lifecyclePayloadWriter(payload: FlowLifecyclePayload): (out: Pieces) => void {
  return (out) => lifecycleJson(out, payload);
}
