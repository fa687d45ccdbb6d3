import { jsonNumber as num, jsonString as str } from './json-text.js';
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

// Writers for the parts of a record, each field of its type written by template: a
// call into JSON.stringify walks the object generically and costs several times as much
// for these small objects. Optional fields
// are left out when undefined, as JSON.stringify does; keys come in the type's order.

const list = <T>(items: readonly T[], write: (item: T) => string): string => `[${items.map(write).join(',')}]`;

function tagProtocolJson(t: TagProtocol): string {
  return `{"tag":${str(t.tag)},"protocol":${str(t.protocol)}}`;
}

function endpointJson(e: Endpoint): string {
  return `{"host":${str(e.host)},"port":${num(e.port)}}`;
}

const optional = (key: string, value: string | number | undefined, write: (v: never) => string): string =>
  value === undefined ? '' : `,"${key}":${write(value as never)}`;

function sourceJson(s: FlowSource): string {
  return (
    `{"ip":${str(s.ip)},"port":${num(s.port)}${optional('process_id', s.process_id, num)}` +
    `${optional('process_name', s.process_name, str)}${optional('process_path', s.process_path, str)}}`
  );
}

function targetJson(t: FlowTarget): string {
  return `{"host":${str(t.host)},"port":${num(t.port)}${optional('resolved_ip', t.resolved_ip, str)}${optional('sniffed_host', t.sniffed_host, str)}}`;
}

function routeJson(r: FlowRoute): string {
  const rule = r.matched_rule;
  return (
    `{"mode":${str(r.mode)},"action":${str(r.action)},"target":${str(r.target)}` +
    `,"matched_rule":${rule ? `{"index":${num(rule.index)},"condition":${str(rule.condition)}}` : 'null'}` +
    `,"selection_chain":${list(r.selection_chain, str)}}`
  );
}

function hopJson(h: RelayHop): string {
  return `{"tag":${str(h.tag)},"protocol":${str(h.protocol)},"server":${str(h.server)},"port":${num(h.port)}}`;
}

function pathJson(p: FlowPath): string {
  return (
    `{"outbound":${p.outbound ? tagProtocolJson(p.outbound) : 'null'},"remote":${p.remote ? endpointJson(p.remote) : 'null'}` +
    `,"relay_chain":${list(p.relay_chain, hopJson)}}`
  );
}

function authJson(a: FlowAuth): string {
  const attributes = Object.keys(a.attributes).map((key) => `${str(key)}:${str(a.attributes[key] as string)}`);
  return `{"scheme":${str(a.scheme)},"principal_key":${str(a.principal_key)},"attributes":{${attributes.join(',')}}}`;
}

function resultJson(r: FlowResult): string {
  const f = r.failure;
  const failure = f
    ? `{"stage":${str(f.stage)},"code":${str(f.code)},"message":${str(f.message)}${f.remote ? `,"remote":${endpointJson(f.remote)}` : ''}}`
    : 'null';
  return `{"outcome":${str(r.outcome)},"close_reason":${str(r.close_reason)},"failure":${failure}}`;
}

function trafficJson(t: FlowTraffic): string {
  return (
    `{"bytes_up":${num(t.bytes_up)},"bytes_down":${num(t.bytes_down)},"inbound_rx_bytes":${num(t.inbound_rx_bytes)}` +
    `,"inbound_tx_bytes":${num(t.inbound_tx_bytes)},"outbound_rx_bytes":${num(t.outbound_rx_bytes)}` +
    `,"outbound_tx_bytes":${num(t.outbound_tx_bytes)},"packets_up":${num(t.packets_up)},"packets_down":${num(t.packets_down)}}`
  );
}

function throughputJson(t: FlowThroughput): string {
  return `{"upload_bps":${num(t.upload_bps)},"download_bps":${num(t.download_bps)},"sampled_at_unix_ms":${num(t.sampled_at_unix_ms)}}`;
}

function timingJson(t: FlowTiming): string {
  return (
    `{"started_at_unix_ms":${num(t.started_at_unix_ms)},"last_activity_at_unix_ms":${num(t.last_activity_at_unix_ms)}` +
    `,"ended_at_unix_ms":${num(t.ended_at_unix_ms)},"duration_ms":${num(t.duration_ms)}}`
  );
}

/** The legacy payload's traffic: the whole counters at flow.completed, four of them before. */
function legacyTrafficJson(t: FlowLifecyclePayload['traffic']): string {
  return t.inbound_rx_bytes === undefined
    ? `{"bytes_up":${num(t.bytes_up)},"bytes_down":${num(t.bytes_down)},"packets_up":${num(t.packets_up)},"packets_down":${num(t.packets_down)}}`
    : trafficJson(t as FlowTraffic);
}

/** The parts of a record that stay the same object from one revision to the next, by slot. */
const PART = { inbound: 0, source: 1, target: 2, route: 3, path: 4, auth: 5, outbound: 6 } as const;
const PART_COUNT = Object.keys(PART).length;

/**
 * One flow's event JSON. A flow's three lifecycle envelopes repeat its inbound, auth,
 * source, target, route and path, and each carries some twice (legacy fields beside
 * the record); records are revised by copy and never changed in place, so the JSON of
 * an object seen before is the one made for it then. Everything is written by
 * template, strings through jsonString: serialization was the largest single item of
 * weir's own work per flow. Every field of the types is written; flow-json.spec holds
 * each writer to JSON.stringify's output on fully populated values.
 */
export class FlowJson {
  private readonly objects = new Array<object | undefined>(PART_COUNT).fill(undefined);
  private readonly texts = new Array<string>(PART_COUNT).fill('');

  record(r: FlowRecord): string {
    return (
      `{"flow_id":${str(r.flow_id)},"revision":${num(r.revision)},"state":${str(r.state)},"network":${str(r.network)}` +
      `,"inbound":${this.part(PART.inbound, r.inbound, tagProtocolJson)}${r.source ? `,"source":${this.part(PART.source, r.source, sourceJson)}` : ''}` +
      `,"target":${this.part(PART.target, r.target, targetJson)},"route":${this.part(PART.route, r.route, routeJson)}` +
      `,"path":${this.part(PART.path, r.path, pathJson)}` +
      `,"traffic":${trafficJson(r.traffic)},"throughput":${throughputJson(r.throughput)},"timing":${timingJson(r.timing)}` +
      `${r.result ? `,"result":${resultJson(r.result)}` : ''}}`
    );
  }

  lifecycle(p: FlowLifecyclePayload): string {
    return (
      `{"flow_id":${str(p.flow_id)},"network":${str(p.network)},"inbound":${this.part(PART.inbound, p.inbound, tagProtocolJson)}` +
      `,"auth":${this.part(PART.auth, p.auth, authJson)},"target":${endpointJson(p.target)}` +
      `,"route":{"mode":${str(p.route.mode)},"target":${str(p.route.target)}},"policy":null` +
      `,"outbound":${p.outbound ? this.part(PART.outbound, p.outbound, tagProtocolJson) : 'null'},"traffic":${legacyTrafficJson(p.traffic)}` +
      `,"timing":{"started_at_unix_ms":${num(p.timing.started_at_unix_ms)},"ended_at_unix_ms":${num(p.timing.ended_at_unix_ms)}` +
      `,"duration_ms":${num(p.timing.duration_ms)}},"outcome":${str(p.outcome)}` +
      `${p.close_reason ? `,"close_reason":${str(p.close_reason)}` : ''},"record":${this.record(p.record)}}`
    );
  }

  private part<T extends object>(slot: number, value: T, write: (value: T) => string): string {
    if (this.objects[slot] !== value) {
      this.objects[slot] = value;
      this.texts[slot] = write(value);
    }
    return this.texts[slot] as string;
  }
}
