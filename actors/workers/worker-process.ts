import type { Logger } from 'pino';
import { NEVER, type Subscription } from 'rxjs';
import type { ConfigSource } from '../config/config-source.js';
import { fingerprint, withHotSections } from '../config/config-diff.js';
import type { WeirConfig } from '../config/schema.js';
import { LocalPlane } from '../engine/local-plane.js';
import { routerOptions } from '../engine/router-options.js';
import { routingParts, type RoutingParts } from '../engine/routing-parts.js';
import { nodeTick } from '../engine/tick.js';
import { zeroUdpStats } from '../flows/flow-stats.js';
import { ChangeBatcher } from './change-batcher.js';
import { applyRoutingState } from './routing-state.js';
import type { HubMessage, WorkerInit, WorkerMessage } from './worker-messages.js';

/** How the worker talks to its hub: process.send over the cluster's IPC channel. */
export type SendToHub = (message: WorkerMessage, done?: () => void) => void;

/**
 * One worker: the inbounds and flows of the node's config in this process (LocalPlane),
 * routed as the hub says (mode and group choices), its flow changes sent to the hub in
 * batches. It owns no sink, no sequence and no control plane: the hub does.
 */
export class WorkerProcess {
  private readonly plane: LocalPlane;
  private readonly routing: RoutingParts;
  private readonly out: ChangeBatcher;
  private readonly udp = zeroUdpStats();
  private current: WeirConfig;
  private readonly tick: Subscription;

  constructor(
    init: WorkerInit,
    private readonly source: ConfigSource,
    config: WeirConfig,
    private readonly log: Logger,
    private readonly send: SendToHub,
  ) {
    this.current = config;
    this.routing = routingParts(this.current);
    this.out = new ChangeBatcher(send);
    this.plane = new LocalPlane({
      config: () => this.current,
      routing: this.routing,
      idPrefix: init.idPrefix,
      tickMs: init.tickMs,
      // The hub publishes: a worker has no events of its own to read.
      events$: NEVER,
      udpStats: this.udp,
      publish: (e) => this.out.event(e),
      dialFailed: (chain, f) => send({ t: 'dial_failed', chain: [...chain], code: f.code, stage: f.stage, message: f.message }),
      log,
      now: Date.now,
    });
    this.plane.table.changes$.subscribe((change) => this.out.change(change));
    this.tick = nodeTick(init.tickMs, Date.now, (at) => this.plane.table.poll(at)).subscribe(() => this.out.counters(this.udp));
  }

  async start(): Promise<void> {
    await this.plane.start();
    const inbounds = this.plane.inbounds.map((i) => ({ tag: i.tag, ...(i.address() ?? { host: '', port: 0 }) }));
    this.send({ t: 'listening', inbounds });
  }

  /** One message of the hub; resolves when the worker is to exit. */
  async handle(message: HubMessage): Promise<'exit' | void> {
    switch (message.t) {
      case 'routing':
        if (message.routing.reload) this.reload();
        applyRoutingState(message.routing, this.routing.router, this.routing.outbounds);
        return;
      case 'close':
        this.plane.table.close(message.flow_id, message.reason);
        return;
      case 'close_all':
        // The hub waits for the completions it is sent; this side needs no deadline.
        void this.plane.table.closeAll(message.reason, Infinity);
        return;
      case 'stop_accepting':
        await this.plane.stopAccepting();
        return;
      case 'exit':
        await this.stop();
        return 'exit';
    }
  }

  /** Ends what is left and sends the last batch; the hub's channel has it once this resolves. */
  async stop(): Promise<void> {
    await this.plane.stopAccepting();
    this.tick.unsubscribe();
    await this.plane.stop();
    await new Promise<void>((resolve) => this.out.flush(resolve));
  }

  /** Takes the hot sections of the config the hub has just applied, as the hub's engine did. */
  private reload(): void {
    const result = this.source.load();
    if (!result.ok) {
      this.log.warn({ problems: result.problems }, 'worker: the config the node applied cannot be read here; routing rules unchanged');
      return;
    }
    const routeChanged = fingerprint(this.current.route) !== fingerprint(result.config.route);
    this.current = withHotSections(this.current, result.config);
    if (routeChanged) this.routing.router.reconfigure(routerOptions(this.current));
    this.log.level = this.current.log.level;
  }
}
