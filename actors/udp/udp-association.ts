import type dgram from 'node:dgram';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import type { FlowAuth, FlowSource, TagProtocol } from '../../streams/contract.js';
import type { FlowEnv } from '../flows/flow-opener.js';
import { decodeUdpDatagram, type SocksTarget } from '../socks5/socks5-wire.js';
import { AddressMap } from './address-map.js';
import type { ClientGate } from './client-gate.js';
import { openUdpFlow, type OpenedUdpFlow } from './open-udp-flow.js';
import { UdpCounters } from './udp-counters.js';
import { countEnd, udpResult } from './udp-result.js';
import { isDeliverable } from './udp-destination.js';
import type { UdpUpstreamEvents } from './udp-upstream.js';

/** Datagrams held while the upstream is being set up; more are dropped. */
export const OPENING_QUEUE_LIMIT = 32;

/** What an association needs of the SOCKS5 inbound that accepted it. */
export interface AssociationEnv {
  flows: FlowEnv;
  inbound: TagProtocol;
  log: Logger;
}

export interface AssociationParts {
  /** The client's TCP connection: the association lives while it is open (RFC 1928 §7). */
  control: Socket;
  /** The relay socket the client sends its datagrams to. */
  relay: dgram.Socket;
  gate: ClientGate;
  auth: FlowAuth;
  source?: FlowSource;
}

/**
 * One SOCKS5 UDP association, as one flow. The flow opens on the first datagram,
 * whose destination is its target and the route's input; later datagrams may name
 * any destination and go the same way. It ends when the control connection ends, when
 * nothing moved for flows.idle_timeout_s (before the first datagram by its own timer,
 * after it by the flow table's check), on flows.close or shutdown, or when the
 * upstream breaks. Per datagram it only bumps counters, read by the 1 s sampler.
 */
export class UdpAssociation implements UdpUpstreamEvents {
  private readonly counters = new UdpCounters();
  /** Destinations this association has sent to, for reused_associations. */
  private readonly destinations = new AddressMap<true>(() => true);
  private flow: OpenedUdpFlow | null = null;
  private queue: { target: SocksTarget; data: Buffer }[] | null = null;
  private upstreamError: Error | null = null;
  private ended = false;
  /** Called by end(): tells the flow, if it is still opening, that its association is gone. */
  private leave: () => void = () => undefined;
  private readonly idleTimer: NodeJS.Timeout;

  constructor(
    private readonly env: AssociationEnv,
    private readonly parts: AssociationParts,
  ) {
    const { control, relay } = parts;
    relay.on('message', (msg, rinfo) => this.fromClient(msg, rinfo));
    relay.on('error', () => this.end());
    control.once('end', () => this.end());
    control.once('close', () => this.end());
    // The client says nothing more on the control connection; read it to see it end.
    control.resume();
    this.idleTimer = setTimeout(() => this.end(), env.flows.idleTimeoutMs);
  }

  /** Counted as relayed (packets_down, bytes_down) once the kernel took the datagram for the client. */
  reply(framed: Buffer | readonly Buffer[], payloadBytes: number, wireBytes: number): void {
    const port = this.parts.gate.clientPort;
    if (this.ended || port === null) return;
    const c = this.counters;
    c.upstreamRx += wireBytes;
    this.parts.relay.send(framed, port, this.parts.gate.ip, (err: Error | null, sent: number) => {
      if (err) {
        // Too large for the client once framed (EMSGSIZE), or the client's address gone.
        this.env.log.debug({ err }, 'udp datagram to the client not sent');
        this.env.flows.udpStats.recv_failures++;
        return;
      }
      c.packetsDown++;
      c.bytesDown += payloadBytes;
      c.clientTx += sent;
      this.env.flows.udpStats.packets_received++;
    });
  }

  sent(payloadBytes: number, wireBytes: number): void {
    const c = this.counters;
    c.packetsUp++;
    c.bytesUp += payloadBytes;
    c.upstreamTx += wireBytes;
    this.env.flows.udpStats.packets_sent++;
  }

  sendFailed(): void {
    this.env.flows.udpStats.send_failures++;
  }

  recvFailed(): void {
    this.env.flows.udpStats.recv_failures++;
  }

  broken(err: Error): void {
    this.upstreamError ??= err;
    this.end();
  }

  private fromClient(msg: Buffer, rinfo: dgram.RemoteInfo): void {
    const c = this.counters;
    if (!this.parts.gate.admits(rinfo.address, rinfo.port)) {
      c.drops.foreign++;
      return;
    }
    c.clientRx += msg.length;
    const datagram = decodeUdpDatagram(msg);
    if (datagram === null) c.drops.malformed++;
    else if (datagram.frag !== 0) c.drops.fragments++;
    else if (this.flow) this.toUpstream(datagram.target, datagram.data);
    else if (this.queue === null) this.open(datagram);
    else if (this.queue.length < OPENING_QUEUE_LIMIT) this.queue.push(datagram);
    else c.drops.overflow++;
  }

  private toUpstream(target: SocksTarget, data: Buffer): void {
    const { host, port } = target;
    // Checked once per destination, not per datagram. One that names no remote is not
    // sent to and not kept; the flow's opening already refused it as the first.
    if (!this.destinations.has(host, port)) {
      if (!isDeliverable(target)) {
        this.sendFailed();
        return;
      }
      this.destinations.add(host, port);
      // A new destination after the first is carried by the upstream association already open.
      if (this.destinations.size > 1) this.env.flows.udpStats.reused_associations++;
    }
    this.flow!.upstream.send(target, data);
  }

  private open(first: { target: SocksTarget; data: Buffer }): void {
    clearTimeout(this.idleTimer);
    this.queue = [first];
    const { env, parts } = this;
    const request = {
      inbound: env.inbound,
      auth: parts.auth,
      source: parts.source,
      target: first.target,
      // Read when the flow ends before relaying: the control exchange and the datagrams held for it.
      unrelayed: () => this.counters.traffic(parts.control, null),
      left: new Promise<void>((resolve) => (this.leave = resolve)),
    };
    openUdpFlow(env.flows, request, this).then(
      (flow) => this.opened(flow),
      (err: unknown) => {
        env.log.error({ err }, 'udp association could not open its flow');
        this.end();
      },
    );
  }

  private opened(flow: OpenedUdpFlow | null): void {
    if (flow === null) {
      this.end();
      return;
    }
    this.flow = flow;
    flow.actor.attach(this.counters.meter(this.parts.control, flow.upstream.control), () => this.end());
    const queued = this.queue ?? [];
    this.queue = null;
    if (this.ended) this.finish(flow);
    else for (const { target, data } of queued) this.toUpstream(target, data);
  }

  /** Tears the association down; the flow completes now, or when its opening finishes. */
  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.leave();
    clearTimeout(this.idleTimer);
    this.parts.relay.close();
    this.parts.control.destroy();
    if (this.flow) this.finish(this.flow);
  }

  private finish(flow: OpenedUdpFlow): void {
    flow.upstream.close();
    countEnd(this.env.flows.udpStats, flow, this.upstreamError);
    flow.actor.complete(this.env.flows.now(), udpResult(flow, this.upstreamError));
    this.env.log.debug({ flow_id: flow.actor.id, drops: this.counters.drops }, 'udp association ended');
  }
}
