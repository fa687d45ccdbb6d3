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

function list<T>(out: Out, items: readonly T[], write: (out: Out, item: T) => void): void {
  out.add('[');
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out.add(',');
    write(out, items[i] as T);
  }
  out.add(']');
}

function optionalStr(out: Out, key: string, value: string | undefined): void {
  if (value === undefined) return;
  out.add(key);
  str(out, value);
}

function tagProtocolJson(out: Out, t: TagProtocol): void {
  out.add('{"tag":');
  str(out, t.tag);
  out.add(',"protocol":');
  str(out, t.protocol);
  out.add('}');
}

function endpointJson(out: Out, e: Endpoint): void {
  out.add('{"host":');
  str(out, e.host);
  out.add(',"port":');
  num(out, e.port);
  out.add('}');
}

function sourceJson(out: Out, s: FlowSource): void {
  out.add('{"ip":');
  str(out, s.ip);
  out.add(',"port":');
  num(out, s.port);
  if (s.process_id !== undefined) {
    out.add(',"process_id":');
    num(out, s.process_id);
  }
  optionalStr(out, ',"process_name":', s.process_name);
  optionalStr(out, ',"process_path":', s.process_path);
  out.add('}');
}

function targetJson(out: Out, t: FlowTarget): void {
  out.add('{"host":');
  str(out, t.host);
  out.add(',"port":');
  num(out, t.port);
  optionalStr(out, ',"resolved_ip":', t.resolved_ip);
  optionalStr(out, ',"sniffed_host":', t.sniffed_host);
  out.add('}');
}

function routeJson(out: Out, r: FlowRoute): void {
  out.add('{"mode":');
  str(out, r.mode);
  out.add(',"action":');
  str(out, r.action);
  out.add(',"target":');
  str(out, r.target);
  out.add(',"matched_rule":');
  const rule = r.matched_rule;
  if (rule) {
    out.add('{"index":');
    num(out, rule.index);
    out.add(',"condition":');
    str(out, rule.condition);
    out.add('}');
  } else out.add('null');
  out.add(',"selection_chain":');
  list(out, r.selection_chain, str);
  out.add('}');
}

function hopJson(out: Out, h: RelayHop): void {
  out.add('{"tag":');
  str(out, h.tag);
  out.add(',"protocol":');
  str(out, h.protocol);
  out.add(',"server":');
  str(out, h.server);
  out.add(',"port":');
  num(out, h.port);
  out.add('}');
}

function pathJson(out: Out, p: FlowPath): void {
  out.add('{"outbound":');
  if (p.outbound) tagProtocolJson(out, p.outbound);
  else out.add('null');
  out.add(',"remote":');
  if (p.remote) endpointJson(out, p.remote);
  else out.add('null');
  out.add(',"relay_chain":');
  list(out, p.relay_chain, hopJson);
  out.add('}');
}

function authJson(out: Out, a: FlowAuth): void {
  out.add('{"scheme":');
  str(out, a.scheme);
  out.add(',"principal_key":');
  str(out, a.principal_key);
  out.add(',"attributes":{');
  let first = true;
  for (const key of Object.keys(a.attributes)) {
    if (!first) out.add(',');
    first = false;
    str(out, key);
    out.add(':');
    str(out, a.attributes[key] as string);
  }
  out.add('}}');
}

function resultJson(out: Out, r: FlowResult): void {
  out.add('{"outcome":');
  str(out, r.outcome);
  out.add(',"close_reason":');
  str(out, r.close_reason);
  out.add(',"failure":');
  const f = r.failure;
  if (f) {
    out.add('{"stage":');
    str(out, f.stage);
    out.add(',"code":');
    str(out, f.code);
    out.add(',"message":');
    str(out, f.message);
    if (f.remote) {
      out.add(',"remote":');
      endpointJson(out, f.remote);
    }
    out.add('}');
  } else out.add('null');
  out.add('}');
}

function trafficJson(out: Out, t: FlowTraffic): void {
  out.add('{"bytes_up":');
  num(out, t.bytes_up);
  out.add(',"bytes_down":');
  num(out, t.bytes_down);
  out.add(',"inbound_rx_bytes":');
  num(out, t.inbound_rx_bytes);
  out.add(',"inbound_tx_bytes":');
  num(out, t.inbound_tx_bytes);
  out.add(',"outbound_rx_bytes":');
  num(out, t.outbound_rx_bytes);
  out.add(',"outbound_tx_bytes":');
  num(out, t.outbound_tx_bytes);
  out.add(',"packets_up":');
  num(out, t.packets_up);
  out.add(',"packets_down":');
  num(out, t.packets_down);
  out.add('}');
}

function throughputJson(out: Out, t: FlowThroughput): void {
  out.add('{"upload_bps":');
  num(out, t.upload_bps);
  out.add(',"download_bps":');
  num(out, t.download_bps);
  out.add(',"sampled_at_unix_ms":');
  num(out, t.sampled_at_unix_ms);
  out.add('}');
}

function timingJson(out: Out, t: FlowTiming): void {
  out.add('{"started_at_unix_ms":');
  num(out, t.started_at_unix_ms);
  out.add(',"last_activity_at_unix_ms":');
  num(out, t.last_activity_at_unix_ms);
  out.add(',"ended_at_unix_ms":');
  num(out, t.ended_at_unix_ms);
  out.add(',"duration_ms":');
  num(out, t.duration_ms);
  out.add('}');
}

/** The legacy payload's traffic: the whole counters at flow.completed, four of them before. */
function legacyTrafficJson(out: Out, t: FlowLifecyclePayload['traffic']): void {
  if (t.inbound_rx_bytes !== undefined) {
    trafficJson(out, t as FlowTraffic);
    return;
  }
  out.add('{"bytes_up":');
  num(out, t.bytes_up);
  out.add(',"bytes_down":');
  num(out, t.bytes_down);
  out.add(',"packets_up":');
  num(out, t.packets_up);
  out.add(',"packets_down":');
  num(out, t.packets_down);
  out.add('}');
}

function recordJson(out: Out, r: FlowRecord): void {
  out.add('{"flow_id":');
  str(out, r.flow_id);
  out.add(',"revision":');
  num(out, r.revision);
  out.add(',"state":');
  str(out, r.state);
  out.add(',"network":');
  str(out, r.network);
  out.add(',"inbound":');
  tagProtocolJson(out, r.inbound);
  if (r.source) {
    out.add(',"source":');
    sourceJson(out, r.source);
  }
  out.add(',"target":');
  targetJson(out, r.target);
  out.add(',"route":');
  routeJson(out, r.route);
  out.add(',"path":');
  pathJson(out, r.path);
  out.add(',"traffic":');
  trafficJson(out, r.traffic);
  out.add(',"throughput":');
  throughputJson(out, r.throughput);
  out.add(',"timing":');
  timingJson(out, r.timing);
  if (r.result) {
    out.add(',"result":');
    resultJson(out, r.result);
  }
  out.add('}');
}

function lifecycleJson(out: Out, p: FlowLifecyclePayload): void {
  out.add('{"flow_id":');
  str(out, p.flow_id);
  out.add(',"network":');
  str(out, p.network);
  out.add(',"inbound":');
  tagProtocolJson(out, p.inbound);
  out.add(',"auth":');
  authJson(out, p.auth);
  out.add(',"target":');
  endpointJson(out, p.target);
  out.add(',"route":{"mode":');
  str(out, p.route.mode);
  out.add(',"target":');
  str(out, p.route.target);
  out.add('},"policy":null,"outbound":');
  if (p.outbound) tagProtocolJson(out, p.outbound);
  else out.add('null');
  out.add(',"traffic":');
  legacyTrafficJson(out, p.traffic);
  out.add(',"timing":{"started_at_unix_ms":');
  num(out, p.timing.started_at_unix_ms);
  out.add(',"ended_at_unix_ms":');
  num(out, p.timing.ended_at_unix_ms);
  out.add(',"duration_ms":');
  num(out, p.timing.duration_ms);
  out.add('},"outcome":');
  str(out, p.outcome);
  if (p.close_reason) {
    out.add(',"close_reason":');
    str(out, p.close_reason);
  }
  out.add(',"record":');
  recordJson(out, p.record);
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

/** A flow.started, flow.routed or flow.completed payload's JSON, as flowRecordJson writes. */
export function lifecyclePayloadJson(payload: FlowLifecyclePayload): string {
  return pieces.joined((out) => lifecycleJson(out, payload));
}
