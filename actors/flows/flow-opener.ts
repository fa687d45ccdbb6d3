import type { Socket } from 'node:net';
import type { Endpoint, FlowAuth, FlowResult, FlowRoute, FlowSource, MatchedRule, TagProtocol, UdpUpstreamStats } from '../../streams/contract.js';
import type { DialResult, Outbound } from '../contracts/outbound.js';
import { FlowFailureError, TargetRefusedError, dialFailure } from '../errors/flow-failure.js';
import { ALLOW } from '../hook/hook-messages.js';
import { targetAddresses, type ResolveTarget } from '../net/target-resolver.js';
import type { OutboundSet } from '../outbounds/outbound-set.js';
import { routeContext, type RouteDecision, type Router } from '../router/router.js';
import { FlowCancelledError, type FlowActor } from './flow-actor.js';
import type { FlowTable } from './flow-table.js';
import type { PreRouted, PreRouting } from './pre-routing.js';
import { BLOCKED, cancelledWhileOpening, failed, refused } from './flow-result.js';
import { extend } from '../base/revise.js';
import { clientOnlyTraffic, type ClientSpan } from './socket-meter.js';

/** What the flow pipeline needs from the engine. */
export interface FlowEnv {
  table: FlowTable;
  router: Router;
  outbounds: OutboundSet;
  /** How target names are resolved for the ip_cidr rules and the direct dial (config `dns`). */
  resolve: ResolveTarget;
  connectTimeoutMs: number;
  /** UDP associations without traffic for this long end with idle_timeout. */
  idleTimeoutMs: number;
  /** The statistics snapshot's udp_upstream counters, kept by the UDP relay. */
  udpStats: UdpUpstreamStats;
  now: () => number;
  /** Sniffing, process lookup and the IPC hook; without it flows are routed as they come. */
  preRouting?: PreRouting;
  /** Told of each failed dial with the route's selection_chain (url_test groups re-probe). */
  dialFailed?: (selectionChain: readonly string[], failure: FlowFailureError) => void;
}

export interface TcpFlowRequest {
  inbound: TagProtocol;
  auth: FlowAuth;
  source?: FlowSource;
  target: Endpoint;
  /** The client's connection: its process is looked up, a tunnel's first bytes sniffed. */
  client?: Socket;
  /** This flow's share of a keep-alive client connection (HTTP). */
  clientSpan?: ClientSpan;
  /** Settles when the client has gone: a flow still opening then ends `cancelled` at once. */
  left?: Promise<void>;
}

/** How an inbound answers its client once the flow's fate is known. */
export interface ClientReply {
  /**
   * Tunnels only (SOCKS5 and HTTP CONNECT): tells the client the tunnel is open, with
   * the outbound's socket, or null when answered before routing so as to sniff.
   */
  succeeded?(remote: Socket | null): void;
  blocked(): void;
  failed(failure: FlowFailureError): void;
}

export interface OpenedFlow {
  actor: FlowActor;
  outbound: Outbound;
  dial: DialResult;
  /** For the relay to call once with the first client chunk (sniffing a routed flow). */
  onFirstBytes?: (chunk: Buffer) => void;
}

/** What pre-routing learnt and how the flow is routed (null: the IPC hook denied it). */
interface Decided {
  pre: PreRouted;
  decision: RouteDecision | null;
}

/** The decision of an IPC hook that denied or routed a flow. */
const HOOK_RULE: MatchedRule = { index: -1, condition: 'ipc_hook' };
const NOT_PRE_ROUTED: PreRouted = { answered: false, head: null, verdict: ALLOW };

/**
 * Runs a TCP flow from acceptance to an established outbound: flow.started, the
 * pre-routing steps (process lookup, sniffing, IPC hook), the routing decision, the
 * dial, flow.routed. A blocked or failed flow is completed here and yields null;
 * otherwise the caller relays and completes it.
 */
export async function openTcpFlow(env: FlowEnv, req: TcpFlowRequest, reply: ClientReply): Promise<OpenedFlow | null> {
  if (env.table.closed) {
    reply.failed(new FlowFailureError('DIAL_FAILED', 'the node is stopping', req.target));
    return null;
  }
  const mode = env.router.mode.mode;
  const actor = env.table.open({ network: 'tcp', inbound: req.inbound, source: req.source, target: req.target, mode, at: env.now() }, req.auth);
  if (req.left) actor.endOpeningOn(req.left);
  let answered = false;
  const answer =
    reply.succeeded &&
    (() => {
      answered = true;
      reply.succeeded!(null);
    });
  // A client already told the tunnel is open learns of a refusal by the connection closing.
  const refuse = (): Omit<ClientReply, 'succeeded'> =>
    answered ? { blocked: () => req.client?.destroy(), failed: () => req.client?.destroy() } : reply;
  /** Completes a flow that ends before relaying; `failure` is what the client is told of a failed or cancelled one. */
  const end = (result: FlowResult, route?: FlowRoute, failure = closedWhileOpening(req.target)): null => {
    if (result.outcome === 'blocked') refuse().blocked();
    else refuse().failed(failure);
    actor.complete(env.now(), result, route, req.client && clientOnlyTraffic(req.client, req.clientSpan));
    return null;
  };

  // The name is looked up at most once: for the ip_cidr rules, then for the direct dial.
  const addresses = targetAddresses(req.target.host, env.resolve);
  const decide = async (): Promise<Decided> => {
    const pre = env.preRouting ? await env.preRouting.run(actor, req, mode, answer) : NOT_PRE_ROUTED;
    if (pre.verdict.action === 'deny') return { pre, decision: null };
    if (pre.verdict.action === 'route') return { pre, decision: { mode, target: pre.verdict.outbound, matched_rule: HOOK_RULE } };
    const ctx = routeContext({
      host: req.target.host,
      port: req.target.port,
      network: 'tcp',
      inbound: req.inbound.tag,
      principal: req.auth.principal_key,
      sniffed_host: pre.sniffed_host,
    });
    const decision = env.router.decide(ctx, addresses);
    return { pre, decision: decision instanceof Promise ? await decision : decision };
  };

  let dial: DialResult | undefined;
  try {
    let decided: Decided;
    try {
      decided = await actor.opening(decide());
    } catch (err) {
      if (err instanceof FlowCancelledError) return end(cancelledWhileOpening(actor));
      throw err;
    }
    const { pre, decision } = decided;
    if (!decision) return end(BLOCKED, { mode, action: 'route', target: null, matched_rule: HOOK_RULE, selection_chain: [] });
    const { outbound, selection_chain } = env.outbounds.resolve(decision.target);
    const route: FlowRoute = extend(decision, { action: 'route' as const, selection_chain });
    if (outbound.kind === 'block') return end(BLOCKED, route);
    try {
      const opts = { connectTimeoutMs: env.connectTimeoutMs, addresses, refusePrivate: env.router.blockPrivate };
      dial = await actor.opening(outbound.dial(req.target, opts), (late) => late.socket.destroy());
    } catch (err) {
      if (err instanceof FlowCancelledError) return end(cancelledWhileOpening(actor), route);
      if (err instanceof TargetRefusedError) return end(refused(err), route);
      const failure = dialFailure(err, req.target);
      env.dialFailed?.(selection_chain, failure);
      return end(failed(failure), route, failure);
    }
    // What the client sent while it was sniffed goes first, ahead of the relay.
    if (pre.head) dial.socket.write(pre.head);
    actor.routed(
      env.now(),
      route,
      { outbound: { tag: outbound.tag, protocol: outbound.protocol }, remote: req.target, relay_chain: dial.relay_chain },
      dial.resolved_ip,
    );
    if (!answered) reply.succeeded?.(dial.socket);
    return pre.onFirstBytes ? { actor, outbound, dial, onFirstBytes: pre.onFirstBytes } : { actor, outbound, dial };
  } catch (err) {
    // Whatever broke after flow.started (a routing decision naming an outbound the node
    // does not run), the flow still ends: flow.completed is what gets billed. The
    // error goes on to the inbound's log.
    dial?.socket.destroy();
    const failure = new FlowFailureError('ROUTE_FAILED', 'the node could not route the flow', req.target);
    if (actor.record.state !== 'completed') end(failed(failure), undefined, failure);
    throw err;
  }
}

/** What the client is told about a flow closed while opening: its connection failed. */
function closedWhileOpening(target: Endpoint): FlowFailureError {
  return new FlowFailureError('DIAL_FAILED', 'flow closed before the outbound was established', target);
}
