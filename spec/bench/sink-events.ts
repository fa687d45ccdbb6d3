import { flowTransition, initialFlowRecord } from '../../actors/flows/flow-logic.js';
import type { BusEvent, FlowAuth } from '../../streams/contract.js';
import { flowEvent } from '../../streams/flow-events.js';

const AUTH: FlowAuth = { scheme: 'socks5', principal_key: 'bench-user', attributes: {} };

/**
 * n flow.completed events as the node publishes them for a flow chained through one
 * SOCKS5 hop (every record field filled, about 1.9 KB of JSON as an envelope), each with its own
 * flow_id. Built by the node's own flow logic, flowEvent and FlowJson, so size, shape and cost are real.
 * Each is built as it is taken, as a flow's is at its end: FlowJson's text is a tree of
 * a template's pieces until it is read whole at publish, and a burst built ahead would
 * hold 50,000 such trees, millions of live objects that every major GC marks (GC was
 * 36% of a delivery profile with them, 16% without).
 */
export function* completedFlows(n: number, prefix: string): Generator<BusEvent> {
  const at = Date.now();
  const opened = initialFlowRecord({
    flow_id: prefix,
    network: 'tcp',
    inbound: { tag: 'socks-in', protocol: 'socks5' },
    source: { ip: '127.0.0.1', port: 40_000 },
    target: { host: 'example.com', port: 443 },
    mode: 'rule',
    at,
  });
  const routed = flowTransition(opened, {
    type: 'routed',
    at: at + 3,
    route: { mode: 'rule', action: 'route', target: 'hop', matched_rule: { index: 0, condition: 'domain_suffix=example.com' }, selection_chain: ['hop'] },
    path: {
      outbound: { tag: 'hop', protocol: 'socks' },
      remote: { host: 'example.com', port: 443 },
      relay_chain: [{ tag: 'hop', protocol: 'socks', server: '127.0.0.1', port: 1080 }],
    },
    resolved_ip: '93.184.216.34',
  });
  const traffic = {
    bytes_up: 1_834,
    bytes_down: 52_113,
    inbound_rx_bytes: 1_856,
    inbound_tx_bytes: 52_125,
    outbound_rx_bytes: 52_125,
    outbound_tx_bytes: 1_856,
    packets_up: null,
    packets_down: null,
  };
  const done = flowTransition(routed, {
    type: 'completed',
    at: at + 250,
    traffic,
    result: { outcome: 'chained_relayed', close_reason: null, failure: null },
  });
  for (let i = 0; i < n; i++) {
    yield flowEvent({ kind: 'completed', record: { ...done, flow_id: `${prefix}-${i}` }, auth: AUTH });
  }
}
