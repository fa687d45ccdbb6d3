import type { DataPlane, PlaneParts, WorkerView } from './data-plane.js';
import type { FlowEnv } from '../flows/flow-opener.js';
import { FlowTable } from '../flows/flow-table.js';
import { PreRouting } from '../flows/pre-routing.js';
import { buildInbounds } from '../inbounds/build-inbounds.js';
import type { ProxyInbound } from '../inbounds/proxy-inbound.js';
import { ProcessLookup } from '../process/process-lookup.js';

/** The inbounds and their flows in this process: the whole data path of `workers: 1`, and each worker's. */
export class LocalPlane implements DataPlane {
  readonly table: FlowTable;
  readonly inbounds: ProxyInbound[];
  private readonly preRouting: PreRouting;

  constructor(opts: PlaneParts) {
    const config = opts.config();
    const { router, outbounds, resolve } = opts.routing;
    this.table = new FlowTable({ idPrefix: opts.idPrefix, idleTimeoutMs: config.flows.idle_timeout_s * 1000 });
    this.preRouting = new PreRouting({
      config: opts.config,
      knows: (tag) => outbounds.has(tag),
      publish: opts.publish,
      log: opts.log,
      ...(process.platform === 'linux' && { processes: new ProcessLookup() }),
    });
    const flows: FlowEnv = {
      table: this.table,
      router,
      outbounds,
      resolve,
      connectTimeoutMs: config.flows.connect_timeout_ms,
      idleTimeoutMs: config.flows.idle_timeout_s * 1000,
      udpStats: opts.udpStats,
      now: opts.now,
      preRouting: this.preRouting,
      dialFailed: opts.dialFailed,
    };
    this.inbounds = buildInbounds(config.inbounds, flows, config.flows.handshake_timeout_ms, opts.log);
  }

  async start(): Promise<void> {
    for (const inbound of this.inbounds) await inbound.start();
  }

  async stopAccepting(): Promise<void> {
    await Promise.all(this.inbounds.map((i) => i.stop()));
  }

  stop(): Promise<void> {
    this.preRouting.close();
    return Promise.resolve();
  }

  /** The flows route with the node's own router and policies: nothing to tell. */
  routingChanged(): void {}

  workers(): WorkerView[] | null {
    return null;
  }
}
