import type { TrafficMeter } from '../../../actors/flows/flow-actor.js';
import type { FlowAuth, FlowPath, FlowRecord, FlowResult, FlowRoute, FlowTraffic } from '../../../streams/contract.js';
import type { FlowChange } from '../../../streams/flow-change.js';
import { flowTransition, initialFlowRecord, type FlowInit } from '../../../actors/flows/flow-logic.js';

/** A fixed start time, so every timing field in the specs is exact. */
export const T0 = 1_700_000_000_000;

export const AUTH: FlowAuth = { scheme: 'socks5', principal_key: 'alice', attributes: {} };

export const ROUTE: FlowRoute = {
  mode: 'rule',
  action: 'route',
  target: 'proxy',
  matched_rule: { index: 0, condition: 'domain_suffix=example.com' },
  selection_chain: ['proxy', 'hop-a'],
};

export const PATH: FlowPath = {
  outbound: { tag: 'hop-a', protocol: 'socks' },
  remote: { host: 'example.com', port: 443 },
  relay_chain: [],
};

export function flowInit(overrides: Partial<FlowInit> = {}): FlowInit {
  return {
    flow_id: 'f-1',
    network: 'tcp',
    inbound: { tag: 'mixed-in', protocol: 'socks5' },
    target: { host: 'example.com', port: 443 },
    mode: 'rule',
    at: T0,
    ...overrides,
  };
}

/**
 * Counters from the user-direction totals. The boundary counters are distinct
 * multiples, so a spec sees which field went where, and all zero for (0, 0).
 */
export function traffic(up: number, down: number): FlowTraffic {
  return {
    bytes_up: up,
    bytes_down: down,
    inbound_rx_bytes: up * 2,
    inbound_tx_bytes: down * 3,
    outbound_rx_bytes: down * 5,
    outbound_tx_bytes: up * 7,
    packets_up: null,
    packets_down: null,
  };
}

export const DIRECT_OK: FlowResult = { outcome: 'direct_relayed', close_reason: null, failure: null };

export function openingRecord(id = 'f-1'): FlowRecord {
  return initialFlowRecord(flowInit({ flow_id: id }));
}

export function activeRecord(id = 'f-1', at = T0 + 100): FlowRecord {
  return flowTransition(openingRecord(id), { type: 'routed', at, route: ROUTE, path: PATH });
}

/**
 * `n` active records that count how often they are serialized: each read of flow_id
 * (JSON.stringify reads it once per record) counts one.
 */
export function countedRecords(n: number): { records: FlowRecord[]; serializations: () => number } {
  let count = 0;
  const records = Array.from({ length: n }, (_, i) => {
    const { flow_id, ...rest } = activeRecord(`f-${i}`);
    return Object.defineProperty({ ...rest }, 'flow_id', { get: () => (count++, flow_id), enumerable: true }) as FlowRecord;
  });
  return { records, serializations: () => count };
}

/** A FlowChange of the given kind whose record has exactly `revision`. */
export function change(kind: FlowChange['kind'], id: string, revision: number): FlowChange {
  const state = kind === 'started' ? 'opening' : kind === 'completed' ? 'completed' : 'active';
  return { kind, record: { ...openingRecord(id), state, revision }, auth: AUTH };
}

/** A meter over `read`, its total the sum of the counters (as the relays' meters are). */
export function meterOf(read: () => FlowTraffic): TrafficMeter {
  const sum = (t: FlowTraffic): number =>
    t.inbound_rx_bytes + t.inbound_tx_bytes + t.outbound_rx_bytes + t.outbound_tx_bytes + (t.packets_up ?? 0) + (t.packets_down ?? 0);
  return { total: () => sum(read()), read };
}
