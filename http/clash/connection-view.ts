import { isIP } from 'node:net';
import type { WeirConfig } from '../../actors/config/schema.js';
import type { FlowRecord } from '../../streams/contract.js';
import { ruleTypeOf } from './rule-view.js';

/** One element of the Clash `/connections` snapshot (mihomo's TrackerInfo). */
export interface ClashConnection {
  id: string;
  metadata: Record<string, string>;
  upload: number;
  download: number;
  start: string;
  chains: string[];
  rule: string;
  rulePayload: string;
}

/** mihomo's inbound type names for weir's inbound protocols. */
const INBOUND_TYPE: Record<string, string> = { socks: 'Socks5', http: 'HTTP', mixed: 'Mixed' };

/**
 * The rule that decided the flow, as mihomo names it: a config rule by its index,
 * `final` as `Match`, global mode as mihomo's empty rule, anything else (an IPC hook's
 * decision) by weir's own condition text.
 */
function ruleOf(record: FlowRecord, rules: WeirConfig['route']['rules']): { rule: string; rulePayload: string } {
  const matched = record.route.matched_rule;
  if (!matched) return { rule: '', rulePayload: '' };
  const configRule = matched.index >= 0 ? rules[matched.index] : undefined;
  if (configRule) {
    const { type, payload } = ruleTypeOf(configRule);
    return { rule: type, rulePayload: payload };
  }
  if (matched.condition === 'final') return { rule: 'Match', rulePayload: '' };
  if (matched.condition === 'global') return { rule: '', rulePayload: '' };
  return { rule: 'Hook', rulePayload: matched.condition };
}

/**
 * A flow as a Clash connection. Ports are strings and every field is present (`""`
 * when unknown), as the dashboards read them; `chains` is leaf first.
 */
export function clashConnection(record: FlowRecord, rules: WeirConfig['route']['rules']): ClashConnection {
  const { target, source } = record;
  const hostIsIp = isIP(target.host) !== 0;
  const metadata: Record<string, string> = {
    network: record.network,
    type: INBOUND_TYPE[record.inbound.protocol] ?? record.inbound.protocol,
    sourceIP: source?.ip ?? '',
    sourcePort: source ? String(source.port) : '',
    destinationIP: target.resolved_ip ?? (hostIsIp ? target.host : ''),
    destinationPort: String(target.port),
    host: hostIsIp ? '' : target.host,
    dnsMode: 'normal',
    inboundName: record.inbound.tag,
    sniffHost: target.sniffed_host ?? '',
    remoteDestination: record.path.remote?.host ?? '',
  };
  // Only with route.process_lookup: yacd adds its Process column when the field exists at all.
  if (source?.process_name !== undefined) metadata['process'] = source.process_name;
  if (source?.process_path !== undefined) metadata['processPath'] = source.process_path;
  return {
    id: record.flow_id,
    metadata,
    upload: record.traffic.bytes_up,
    download: record.traffic.bytes_down,
    start: new Date(record.timing.started_at_unix_ms).toISOString(),
    chains: [...record.route.selection_chain].reverse(),
    ...ruleOf(record, rules),
  };
}
