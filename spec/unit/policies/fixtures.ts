import http from 'node:http';
import net from 'node:net';
import type { BusEvent, Endpoint } from '../../../streams/contract.js';
import type { OutboundConfig } from '../../../actors/config/schema.js';
import type { DialOptions, DialResult, Outbound } from '../../../actors/contracts/outbound.js';
import { OutboundSet, type Policy } from '../../../actors/outbounds/outbound-set.js';
import { tcpConnect } from '../../../actors/outbounds/tcp-connect.js';

/** An HTTP origin on loopback that answers every request after `delayMs` ('never': it does not answer). */
export class Origin {
  delayMs: number | 'never';
  status: number;
  readonly requests: { path: string; host: string | undefined }[] = [];
  /** Most requests it ever held unanswered at once. */
  maxInFlight = 0;
  private inFlight = 0;
  private readonly server: http.Server;

  private constructor(delayMs: number | 'never', status: number) {
    this.delayMs = delayMs;
    this.status = status;
    this.server = http.createServer((req, res) => {
      this.requests.push({ path: req.url ?? '', host: req.headers.host });
      this.maxInFlight = Math.max(this.maxInFlight, ++this.inFlight);
      res.on('close', () => this.inFlight--);
      if (this.delayMs === 'never') return;
      setTimeout(() => res.writeHead(this.status).end(), this.delayMs);
    });
  }

  static async start(delayMs: number | 'never', status = 204): Promise<Origin> {
    const origin = new Origin(delayMs, status);
    await new Promise<void>((resolve) => origin.server.listen(0, '127.0.0.1', resolve));
    return origin;
  }

  get port(): number {
    return (this.server.address() as net.AddressInfo).port;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * A leaf whose path ends at one origin, whatever target it is asked for: each member
 * of a group gets its own latency. It records the targets it was asked to dial.
 */
export class OriginOutbound implements Outbound {
  readonly protocol = 'test';
  readonly kind = 'relay';
  readonly chained = false;
  readonly dialled: Endpoint[] = [];

  constructor(
    readonly tag: string,
    private readonly origin: Origin,
  ) {}

  async dial(target: Endpoint, opts: DialOptions): Promise<DialResult> {
    this.dialled.push(target);
    const socket = await tcpConnect({ host: '127.0.0.1', port: this.origin.port }, opts.connectTimeoutMs);
    return { socket, relay_chain: [], handshake: { rx: 0, tx: 0 } };
  }
}

export function outboundSet(leaves: readonly Outbound[], policies: readonly Policy[]): OutboundSet {
  return new OutboundSet(new Map(leaves.map((l) => [l.tag, l])), new Map(policies.map((p) => [p.tag, p])));
}

/** A url_test config as the schema yields it, defaults filled. */
export function urlTestConfig(tag: string, members: string[], over: Partial<UrlTestConfig> = {}): UrlTestConfig {
  return {
    type: 'url_test',
    tag,
    members,
    url: 'http://probe.test:8080/generate_204',
    interval_s: 300,
    tolerance_ms: 50,
    timeout_ms: 1000,
    ...over,
  };
}

export type UrlTestConfig = Extract<OutboundConfig, { type: 'url_test' }>;

/** Collects what a runner publishes. */
export class Published {
  readonly events: BusEvent[] = [];
  readonly publish = (event: BusEvent): void => {
    this.events.push(event);
  };

  ofType(type: BusEvent['event_type']): object[] {
    return this.events.filter((e) => e.event_type === type).map((e) => e.payload);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
