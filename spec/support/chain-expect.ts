import * as assert from 'uvu/assert';
import type { Endpoint, FlowFailure, FlowRecord, RelayHop, TagProtocol } from '../../streams/contract.js';
import { recordOf } from './flow-expect.js';
import type { FlowLifecycle } from './flow-lifecycle.js';
import { e2eConfig } from './node-config.js';
import type { OriginConnection } from './origin.js';
import { startNode, type WeirNode } from './start-node.js';
import { tempDir } from './temp-dir.js';
import type { UpstreamProxy } from './upstream-proxies.js';

/** The config of a socks/http outbound pointing at a running upstream proxy. */
export function hopOutbound(tag: string, proxy: UpstreamProxy, user?: { username: string; password: string }): Record<string, unknown> {
  return { type: proxy.protocol, tag, server: '127.0.0.1', port: proxy.port, ...user };
}

export function relayHop(tag: string, proxy: { protocol: string; port: number }): RelayHop {
  return { tag, protocol: proxy.protocol, server: '127.0.0.1', port: proxy.port };
}

/** How routing decided: rule `index` (an `inbound=<tag>` rule) and the walk to the leaf. */
export interface RouteExpectation {
  inbound: string;
  index: number;
  selection_chain: string[];
}

function assertRoute(r: FlowRecord, route: RouteExpectation): void {
  assert.equal(r.route, {
    mode: 'rule',
    action: 'route',
    target: route.selection_chain[0],
    matched_rule: { index: route.index, condition: `inbound=${route.inbound}` },
    selection_chain: route.selection_chain,
  });
  assert.equal(r.inbound, { tag: route.inbound, protocol: 'socks' });
}

export interface ChainedExpectation extends RouteExpectation {
  target: Endpoint;
  outbound: TagProtocol;
  relay_chain: RelayHop[];
  /** Exact handshake bytes on the outbound socket, where the hops' answers are known. */
  handshake?: { rx: number; tx: number };
}

/**
 * A flow relayed through upstream proxies: routed and completed with the final
 * outbound, the target as remote and the hops in order; bytes_up/bytes_down are what
 * the origin received and sent, and only the boundary counters include the handshakes.
 */
export function assertChained(flow: FlowLifecycle, expect: ChainedExpectation, origin: OriginConnection): void {
  assert.ok(flow.routed, 'a chained flow has flow.routed');
  const path = { outbound: expect.outbound, remote: expect.target, relay_chain: expect.relay_chain };
  for (const e of [flow.routed, flow.completed]) {
    const r = recordOf(e);
    assertRoute(r, expect);
    assert.equal(r.path, path, `${e.event_type}: record.path`);
    assert.equal(r.target, { ...expect.target, resolved_ip: expect.target.host }, `${e.event_type}: target, resolved_ip = the IP it names`);
    assert.equal(e.payload['outbound'], expect.outbound, `${e.event_type}: legacy outbound`);
  }
  const done = recordOf(flow.completed);
  assert.is(flow.completed.payload['outcome'], 'chained_relayed');
  assert.not.ok('close_reason' in flow.completed.payload, 'no close_reason for a normal end');
  assert.equal(done.result, { outcome: 'chained_relayed', close_reason: null, failure: null });
  const t = done.traffic;
  assert.is(t.bytes_down, origin.bytesWritten, 'bytes_down = what the origin sent');
  assert.is(t.bytes_up, origin.bytesRead, 'bytes_up = what the origin received');
  assert.ok(t.outbound_rx_bytes > t.bytes_down, 'outbound_rx_bytes includes the hops\' answers');
  assert.ok(t.outbound_tx_bytes > t.bytes_up, 'outbound_tx_bytes includes the requests to the hops');
  assert.ok(t.inbound_tx_bytes >= t.bytes_down, 'the client got at least bytes_down');
  assert.ok(t.inbound_rx_bytes >= t.bytes_up, 'the client sent at least bytes_up');
  if (expect.handshake) {
    assert.is(t.outbound_rx_bytes - t.bytes_down, expect.handshake.rx, 'handshake bytes read');
    assert.is(t.outbound_tx_bytes - t.bytes_up, expect.handshake.tx, 'handshake bytes written');
  }
}

/** A flow whose chain could not be established: failed/upstream_error with the hop's failure. */
export function assertHopFailed(flow: FlowLifecycle, route: RouteExpectation, target: Endpoint, failure: Omit<FlowFailure, 'message'>): string {
  assert.is(flow.routed, undefined, 'a flow that never became active has no flow.routed');
  const r = recordOf(flow.completed);
  assertRoute(r, route);
  assert.equal(r.target, target);
  assert.equal(r.path, { outbound: null, remote: null, relay_chain: [] });
  assert.is(flow.completed.payload['outcome'], 'failed');
  assert.is(flow.completed.payload['close_reason'], 'upstream_error');
  assert.is(r.result?.outcome, 'failed');
  assert.is(r.result?.close_reason, 'upstream_error');
  const { message, ...rest } = r.result?.failure ?? ({} as FlowFailure);
  assert.equal(rest, failure, 'result.failure');
  assert.equal(r.traffic.bytes_up + r.traffic.bytes_down, 0, 'nothing was relayed');
  return message;
}

/**
 * Starts a node whose socks inbound `in-<tag>` is routed to outbound `<tag>` (rule i
 * for routed[i]), with the given outbounds; the inbounds listen on ports the kernel gives.
 */
export async function startChainNode(
  outbounds: Record<string, unknown>[],
  routed: readonly string[],
): Promise<{ node: WeirNode; stateDir: string }> {
  const stateDir = tempDir();
  const inbounds = routed.map((tag) => ({ type: 'socks', tag: `in-${tag}`, listen: '127.0.0.1', port: 0 }));
  const config = {
    ...e2eConfig({ stateDir, inbounds, flows: { connect_timeout_ms: 3000 } }),
    outbounds,
    route: { mode: 'rule', rules: routed.map((tag) => ({ inbound: [`in-${tag}`], outbound: tag })), final: 'direct' },
  };
  return { node: await startNode(config), stateDir };
}
