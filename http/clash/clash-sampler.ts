import { defer, map, share, type Observable } from 'rxjs';
import type { WeirConfig } from '../../actors/config/schema.js';
import type { ControlOps } from '../../actors/control/control-ops.js';
import type { FlowRecord, StatsSnapshot } from '../../streams/contract.js';
import { KeptText } from '../../streams/kept-text.js';
import { joinedSlices, textSlices } from '../../streams/text-slices.js';
import { clashConnection } from './connection-view.js';

/** What the Clash streams send at one tick of the node's clock. */
export interface ClashSample {
  /** Bytes since start, closed flows included; never lower than at an earlier sample. */
  uploadTotal: number;
  downloadTotal: number;
  /** Bytes of the last tick (difference of the totals). */
  up: number;
  down: number;
  /** Resident memory, bytes. */
  inuse: number;
  /**
   * The `/connections` snapshot's JSON, made on first call (a slice of flows per turn of
   * the event loop) and shared by every reader of the sample.
   */
  connectionsJson(): Promise<string>;
}

/**
 * The Clash streams' one view of the node's sampled state: each stats.sampled (the
 * node's 1 s tick, right after the flow table read its counters, the same state the
 * event streams sample) becomes one ClashSample, made once however many dashboards
 * listen, and not at all while none does.
 */
export class ClashSampler {
  readonly samples$: Observable<ClashSample>;
  /**
   * The totals last sent. A cut HTTP flow's final count can fall short of its last
   * live reading, so the node's totals can dip; a dashboard takes a dip for a restart.
   */
  private floor = { up: 0, down: 0 };
  /** Each flow's connection JSON under the rules in force (a reload brings new rules, and new texts). */
  private connections: { rules: WeirConfig['route']['rules']; texts: KeptText<FlowRecord> } | null = null;

  constructor(private readonly ops: ControlOps) {
    this.samples$ = defer(() => {
      // Per run of the shared pipeline: the first tick after nobody listened has no last one.
      let last: { up: number; down: number } | null = null;
      return ops.subscribe({ types: ['stats.sampled'] }).events$.pipe(
        map((e) => {
          const sample = this.sample((e.envelope().payload as StatsSnapshot));
          sample.up = last ? sample.uploadTotal - last.up : 0;
          sample.down = last ? sample.downloadTotal - last.down : 0;
          last = { up: sample.uploadTotal, down: sample.downloadTotal };
          return sample;
        }),
      );
    }).pipe(share());
  }

  /** A sample of the state now (the first message of a new stream), with no per-tick rates. */
  now(): ClashSample {
    return this.sample(this.ops.stats());
  }

  private sample(stats: StatsSnapshot): ClashSample {
    this.floor = { up: Math.max(this.floor.up, stats.bytes_up), down: Math.max(this.floor.down, stats.bytes_down) };
    const { up, down } = this.floor;
    const inuse = process.memoryUsage.rss();
    let json: Promise<string> | null = null;
    return {
      uploadTotal: up,
      downloadTotal: down,
      up: 0,
      down: 0,
      inuse,
      connectionsJson: () =>
        (json ??= this.connectionTexts().then((connections) => `{"downloadTotal":${down},"uploadTotal":${up},"connections":[${connections}],"memory":${inuse}}`)),
    };
  }

  /** The active flows as Clash connections, JSON array elements, each flow's kept while its record lives. */
  private connectionTexts(): Promise<string> {
    const rules = this.ops.routing().route.rules;
    if (this.connections?.rules !== rules) {
      this.connections = { rules, texts: new KeptText((record) => JSON.stringify(clashConnection(record, rules))) };
    }
    return joinedSlices(textSlices(this.ops.activeFlows(), this.connections.texts));
  }
}
