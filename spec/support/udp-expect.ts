import * as assert from 'uvu/assert';
import type {
  Endpoint,
  FlowFailure,
  FlowRecord,
  FlowRoute,
  FlowTraffic,
  Outcome,
  RelayHop,
  StatsSnapshot,
  TagProtocol,
  UdpUpstreamStats,
} from '../../streams/contract.js';
import { zeroUdpStats } from '../../actors/flows/flow-stats.js';
import { recordOf } from './flow-expect.js';
import type { FlowLifecycle } from './flow-lifecycle.js';
import { ofType, readJsonl, waitForEvents } from './jsonl.js';
import { WAIT_MS } from './far-bound.js';

/** What a spec knows about the flow of one of its UDP associations. */
export interface UdpFlowExpectation {
  inbound: TagProtocol;
  /** The first datagram's destination, or the request's DST for an association refused at the command. */
  target: Endpoint;
  route: Omit<FlowRoute, 'mode' | 'action'>;
  /** The leaf outbound of a relayed flow; undefined for a flow that never became active. */
  outbound?: TagProtocol;
  relay_chain?: RelayHop[];
  outcome: Outcome;
  close_reason?: 'manual' | 'idle_timeout' | 'upstream_error';
  failure?: Omit<FlowFailure, 'message'>;
  /** The final counters, exact. */
  traffic: FlowTraffic;
}

/** Every event of one UDP flow against what the spec expects: network udp, packets counted from 0. */
export function assertUdpFlow(flow: FlowLifecycle, expect: UdpFlowExpectation): void {
  const { started, routed, completed } = flow;
  for (const e of [started, routed, ...flow.updated, completed]) {
    if (!e) continue;
    const r = recordOf(e);
    assert.is(r.network, 'udp', `${e.event_type}: record.network`);
    assert.equal(r.inbound, expect.inbound);
    assert.equal({ host: r.target.host, port: r.target.port }, expect.target, `${e.event_type}: record.target`);
    assert.is(r.source?.ip, '127.0.0.1');
    if (e.event_type !== 'flow.updated') assert.is(e.payload['network'], 'udp', `${e.event_type}: legacy network`);
  }
  const first = recordOf(started);
  assert.is(first.state, 'opening');
  assert.equal([first.traffic.packets_up, first.traffic.packets_down], [0, 0], 'a udp flow counts packets from zero');
  assert.equal(first.route.action, 'pending');
  if (expect.outbound) {
    assert.ok(routed, 'a relayed association has flow.routed');
    const r = recordOf(routed);
    assert.is(r.state, 'active');
    assert.equal(r.path, { outbound: expect.outbound, remote: expect.target, relay_chain: expect.relay_chain ?? [] });
  } else {
    assert.is(routed, undefined, 'an association that never relayed has no flow.routed');
  }
  const last: FlowRecord = recordOf(completed);
  assert.is(last.state, 'completed');
  assert.equal(last.route, { mode: 'rule', action: 'route', ...expect.route });
  assert.is(completed.payload['outcome'], expect.outcome);
  assert.is(completed.payload['close_reason'], expect.close_reason);
  assert.is(last.result?.outcome, expect.outcome);
  assert.is(last.result?.close_reason, expect.close_reason ?? null);
  if (expect.failure) {
    const { message, ...rest } = last.result?.failure ?? ({} as FlowFailure);
    assert.equal(rest, expect.failure, 'result.failure');
    assert.ok(typeof message === 'string' && message.length > 0, 'result.failure.message');
  } else {
    assert.is(last.result?.failure, null);
  }
  assert.equal(last.traffic, expect.traffic, 'flow.completed traffic');
  assert.equal(completed.payload['traffic'], last.traffic, 'legacy traffic is the record traffic');
}

/** SOCKS5 UDP header of an IPv4 address: RSV RSV FRAG ATYP, 4 address bytes, port. */
export const IPV4_HEADER = 10;
/** A no-auth UDP ASSOCIATE with an IPv4 DST: greeting 3 + request 10 written, method 2 + reply 10 read. */
const CONTROL = { client: 3 + 10, server: 2 + 10 };

/**
 * The exact counters of an association that sent `up` and received `down` payloads to
 * and from IPv4 destinations. Through a hop, the hop's control connection and the
 * SOCKS headers to its relay count on the outbound side.
 */
export function udpTraffic(up: readonly number[], down: readonly number[], via: 'direct' | 'hop'): FlowTraffic {
  const sum = (sizes: readonly number[], each = 0): number => sizes.reduce((total, n) => total + n + each, 0);
  const framedUp = sum(up, IPV4_HEADER);
  const framedDown = sum(down, IPV4_HEADER);
  return {
    bytes_up: sum(up),
    bytes_down: sum(down),
    inbound_rx_bytes: CONTROL.client + framedUp,
    inbound_tx_bytes: CONTROL.server + framedDown,
    outbound_rx_bytes: via === 'hop' ? CONTROL.server + framedDown : sum(down),
    outbound_tx_bytes: via === 'hop' ? CONTROL.client + framedUp : sum(up),
    packets_up: up.length,
    packets_down: down.length,
  };
}

/** udp_upstream of the last stats.sampled in the file (all zero before the first). */
export function udpStatsNow(file: string): UdpUpstreamStats {
  const samples = ofType(readJsonl(file), 'stats.sampled');
  const last = samples[samples.length - 1];
  return last ? (last.payload as unknown as StatsSnapshot).udp_upstream : zeroUdpStats();
}

/** udp_upstream of the first stats.sampled after the flow.completed of `flowId`. */
export async function udpStatsAfter(file: string, flowId: string): Promise<UdpUpstreamStats> {
  const events = await waitForEvents(
    file,
    (es) => {
      const done = es.findIndex((e) => e.event_type === 'flow.completed' && e.payload['flow_id'] === flowId);
      return done >= 0 && es.slice(done).some((e) => e.event_type === 'stats.sampled');
    },
    WAIT_MS,
    `stats.sampled after ${flowId} completed`,
  );
  const done = events.findIndex((e) => e.event_type === 'flow.completed' && e.payload['flow_id'] === flowId);
  const sample = events.slice(done).find((e) => e.event_type === 'stats.sampled')!;
  return (sample.payload as unknown as StatsSnapshot).udp_upstream;
}

/** How much each counter moved from `before` to `after`. */
export function udpDelta(before: UdpUpstreamStats, after: UdpUpstreamStats): UdpUpstreamStats {
  const out = zeroUdpStats();
  for (const key of Object.keys(out) as (keyof UdpUpstreamStats)[]) out[key] = after[key] - before[key];
  return out;
}

/** A delta with the named counters set and every other one zero. */
export function moved(counters: Partial<UdpUpstreamStats>): UdpUpstreamStats {
  return { ...zeroUdpStats(), ...counters };
}
