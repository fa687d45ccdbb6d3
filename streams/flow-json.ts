import { jsonNumber } from './json-number.js';
import type { FlowLifecyclePayload, FlowRecord, FlowThroughput, FlowTiming, FlowTraffic } from './contract.js';

const num = jsonNumber;

const str = (value: string | null): string => JSON.stringify(value);

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
 * an object seen before is the one made for it then. Counters and times are written
 * by template. A flow.completed payload so takes 1.3 µs instead of JSON.stringify's
 * 4.5 (measured): serialization was the largest single item of weir's own work per
 * flow. Every field of the types is written; flow-json.spec holds each writer to
 * JSON.stringify's output on fully populated values.
 */
export class FlowJson {
  private readonly objects = new Array<object | undefined>(PART_COUNT).fill(undefined);
  private readonly texts = new Array<string>(PART_COUNT).fill('');

  record(r: FlowRecord): string {
    return (
      `{"flow_id":${str(r.flow_id)},"revision":${num(r.revision)},"state":${str(r.state)},"network":${str(r.network)}` +
      `,"inbound":${this.part(PART.inbound, r.inbound)}${r.source ? `,"source":${this.part(PART.source, r.source)}` : ''}` +
      `,"target":${this.part(PART.target, r.target)},"route":${this.part(PART.route, r.route)},"path":${this.part(PART.path, r.path)}` +
      `,"traffic":${trafficJson(r.traffic)},"throughput":${throughputJson(r.throughput)},"timing":${timingJson(r.timing)}` +
      `${r.result ? `,"result":${JSON.stringify(r.result)}` : ''}}`
    );
  }

  lifecycle(p: FlowLifecyclePayload): string {
    return (
      `{"flow_id":${str(p.flow_id)},"network":${str(p.network)},"inbound":${this.part(PART.inbound, p.inbound)}` +
      `,"auth":${this.part(PART.auth, p.auth)},"target":{"host":${str(p.target.host)},"port":${num(p.target.port)}}` +
      `,"route":{"mode":${str(p.route.mode)},"target":${str(p.route.target)}},"policy":null` +
      `,"outbound":${p.outbound ? this.part(PART.outbound, p.outbound) : 'null'},"traffic":${legacyTrafficJson(p.traffic)}` +
      `,"timing":{"started_at_unix_ms":${num(p.timing.started_at_unix_ms)},"ended_at_unix_ms":${num(p.timing.ended_at_unix_ms)}` +
      `,"duration_ms":${num(p.timing.duration_ms)}},"outcome":${str(p.outcome)}` +
      `${p.close_reason ? `,"close_reason":${str(p.close_reason)}` : ''},"record":${this.record(p.record)}}`
    );
  }

  private part(slot: number, value: object): string {
    if (this.objects[slot] !== value) {
      this.objects[slot] = value;
      this.texts[slot] = JSON.stringify(value);
    }
    return this.texts[slot] as string;
  }
}
