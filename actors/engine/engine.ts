import { redisAddressOf } from '../redis/redis-client.js';
import { Subject, Subscription, tap } from 'rxjs';
import type { Logger } from 'pino';
import { EventBus } from '../../streams/event-bus.js';
import { SequenceReservation } from '../files/sequence-reservation.js';
import { flowEvent } from '../../streams/flow-events.js';
import { sampleRevisions } from '../../streams/revision-sampler.js';
import { fingerprint, restartRequired, withHotSections } from '../config/config-diff.js';
import type { SinkConfig, WeirConfig } from '../config/schema.js';
import { shownChanges, sinkChanges, type SinkChanges } from './sink-changes.js';
import { SINK_START_RETRY_MS } from './retried-start.js';
import { swapSinks } from './swap-sinks.js';
import type { ConnectorState, Sink } from '../contracts/sink.js';
import { AccessLog } from '../flows/access-log.js';
import { FlowHistory } from '../flows/flow-history.js';
import { FlowStats } from '../flows/flow-stats.js';
import { PrincipalLedger } from '../principals/principal-ledger.js';
import { PrincipalStore } from '../principals/principal-store.js';
import { persistSelections } from '../policies/persist-selections.js';
import { ProbeRunner } from '../policies/probe-runner.js';
import { SelectionStore } from '../policies/selection-store.js';
import type { OutboundSet } from '../outbounds/outbound-set.js';
import type { Router } from '../router/router.js';
import { routerOptions } from './router-options.js';
import type { ActiveFlows } from '../flows/active-flows.js';
import type { DataPlane, PlaneParts, WorkerView } from './data-plane.js';
import type { Inbound } from '../contracts/inbound.js';
import { LocalPlane } from './local-plane.js';
import { routingParts, type RoutingParts } from './routing-parts.js';
import type { RouteMode } from '../../streams/contract.js';
import type { DeliveryAcks } from '../sinks/delivery-acks.js';
import { buildSink } from './build-sinks.js';
import { MissedRanges } from '../sinks/missed-ranges.js';
import { carryUncleanStop } from './unclean-stop.js';
import { SinkKeeper } from '../sinks/sink-keeper.js';
import { keptMarks, type Marks } from '../sinks/sink-marks.js';
import type { BuildInfo } from './build-info.js';
import { StopDeadline } from '../base/stop-deadline.js';
import { LazyOutboxStores } from './lazy-outbox-stores.js';
import { nodeTick } from './tick.js';

export interface EngineOptions {
  config: WeirConfig;
  log: Logger;
  build: BuildInfo;
  /** Period of flow.updated sampling and stats.sampled. @defaultValue 1000 */
  tickMs?: number;
  now?: () => number;
  /** Builds the data plane when the flows run elsewhere (WorkerPool); default: in this process. */
  plane?: (parts: PlaneParts) => DataPlane;
}

export interface ConfigApplied {
  changed: boolean;
  sinks: SinkChanges & { removed_pending: Record<string, number> };
  route_changed: boolean;
  /** What differs but applies only on a restart (restartRequired); the node runs on as it started. */
  restart_required: string[];
}

/**
 * How long a stop waits in all for what the node does not control: open flows to end,
 * Redis to take the last events and the leases back, Webhook receivers to answer the
 * deliveries in flight (StopDeadline). What is left after it is local (the embedded
 * outbox, the state files), so a stop ends about 5 s after the signal at most, inside
 * the 10 s a process manager commonly gives before SIGKILL. Redis not having answered
 * by then loses nothing: the events go to the outage journal, unsettled leases are
 * taken back by the next start.
 */
const STOP_WAIT_MS = 4000;

/** How long shutdown waits for open flows to close before it goes on; part of STOP_WAIT_MS. */
const SHUTDOWN_FLOW_GRACE_MS = 3000;

/**
 * The supervisor: builds the rooms from the config, wires every flow actor's state
 * into the event bus through the revision sampler, and runs the lifecycle.
 */
export class Engine {
  readonly bus: EventBus;
  readonly table: ActiveFlows;
  readonly stats = new FlowStats();
  readonly principals: PrincipalLedger;
  readonly history: FlowHistory;
  private readonly principalStore: PrincipalStore;
  readonly router: Router;
  readonly outbounds: OutboundSet;
  readonly inbounds: readonly Inbound[];
  private readonly plane: DataPlane;
  sinks: Sink[];
  private readonly missed: MissedRanges;
  private readonly keeper: SinkKeeper;
  /** What the sinks had kept in a run before that did not stop cleanly; null after a clean stop. */
  private readonly leftMarks: Marks | null;
  private readonly sequences: SequenceReservation;
  readonly probes: ProbeRunner;
  /** Where the sinks tell of the deliveries their receivers acknowledged. */
  readonly acks: DeliveryAcks = new Subject();
  readonly startedAt: number;
  private detachSelections: () => void = () => {};
  private readonly stores: LazyOutboxStores;
  private readonly wiring = new Subscription();
  private readonly now: () => number;
  private stopping: Promise<void> | null = null;
  /** Begun by the stop; the sinks and outbox stores are built with it. */
  private readonly deadline = new StopDeadline();
  /** The config applies, and at last the sinks' stop, in arrival order: each waits for the one before. */
  private applying: Promise<unknown> = Promise.resolve();

  private current: WeirConfig;

  constructor(private readonly opts: EngineOptions) {
    const { config, log } = opts;
    this.current = config;
    this.now = opts.now ?? Date.now;
    this.startedAt = this.now();
    this.keeper = new SinkKeeper(
      config.node.state_dir,
      (problem) => log.warn({ problem }, 'sink records'),
      (message) => log.info(message),
    );
    // Read before the sequences: a crashed run's marks say what it had published at least.
    this.leftMarks = this.keeper.marks.left();
    this.sequences = SequenceReservation.open(config.node.state_dir, {
      published: Math.max(0, ...Object.values(this.leftMarks ?? {})),
      onProblem: (problem) => log.warn({ problem }, 'event sequences'),
      onRecovered: (message) => log.info(message),
    });
    if (this.sequences.problem) log.warn({ problem: this.sequences.problem }, 'event sequences may start over at 1 on the next start');
    this.stores = new LazyOutboxStores({
      config: () => this.config,
      warning: (code, message) => this.bus.publish({ event_type: 'engine.warning', payload: { code, message } }),
      log,
      runFirstSequence: this.sequences.first,
      deadline: this.deadline,
    });
    this.bus = new EventBus({
      ringCapacity: config.node.replay_ring.max_events,
      ringMaxBytes: config.node.replay_ring.max_bytes,
      now: this.now,
      firstSequence: this.sequences.first,
    });
    this.history = new FlowHistory(config.flows.history_size);
    this.principalStore = new PrincipalStore(
      config.node.state_dir,
      (problem) => log.warn({ problem }, 'principals'),
      (message) => log.info(message),
    );
    this.principals = new PrincipalLedger(this.startedAt, this.principalStore.load());
    const routing = routingParts(config);
    this.router = routing.router;
    this.outbounds = routing.outbounds;
    this.probes = new ProbeRunner({
      configs: config.outbounds,
      outbounds: this.outbounds,
      publish: (e) => this.bus.publish(e),
      now: this.now,
    });
    this.plane = this.dataPlane(routing);
    this.table = this.plane.table;
    this.inbounds = this.plane.inbounds;
    this.sinks = config.event_sinks.map((c) => this.sinkOf(c));
    // A sink that starts with a carried gap may not be in this.sinks yet (a swap).
    this.missed = new MissedRanges(config.node.state_dir, (sink) => this.keeper.keepStates([...this.sinks.filter((s) => s.tag !== sink.tag), sink]));
  }

  get config(): WeirConfig {
    return this.current;
  }

  /** The flows run here (LocalPlane), or where EngineOptions.plane puts them (node.workers). */
  private dataPlane(routing: RoutingParts): DataPlane {
    const parts: PlaneParts = {
      config: () => this.current,
      routing,
      idPrefix: this.bus.epoch,
      tickMs: this.opts.tickMs ?? 1000,
      events$: this.bus.events$,
      udpStats: this.stats.udp,
      publish: (e) => void this.bus.publish(e),
      dialFailed: (chain, failure) => this.probes.pathFailed(chain, failure),
      log: this.opts.log,
      now: this.now,
    };
    return this.opts.plane?.(parts) ?? new LocalPlane(parts);
  }

  /** The worker processes, or null when the flows run in the node's process. */
  workers(): WorkerView[] | null {
    return this.plane.workers();
  }

  /** Sets the routing mode for the flows that start after it, in every process that runs flows. */
  setMode(mode: RouteMode, globalTarget: string | null): void {
    this.router.setMode(mode, globalTarget);
    this.plane.routingChanged(false);
  }

  /** The node's logger, for the parts built around the engine (the audit trail). */
  get log(): Logger {
    return this.opts.log;
  }

  private sinkOf(c: SinkConfig, previous?: ConnectorState): Sink {
    return buildSink(c, {
      nodeId: this.current.node.id,
      stateDir: this.current.node.state_dir,
      bus: this.bus,
      openOutbox: (sink, opts) => this.stores.open(sink, opts),
      // Each reconnect attempt errs; an outage and its end are logged once each (openOutbox).
      redis: this.current.redis ? { url: redisAddressOf(this.current.redis), onError: (err) => this.opts.log.debug({ err: err.message }, 'redis error') } : null,
      publish: (e) => this.bus.publish(e),
      deadline: this.deadline,
      log: this.opts.log,
      acks: this.acks,
    }, previous);
  }

  /** Whether the outbox reaches Redis now (LazyOutboxStores.redisUp). */
  redisUp(): boolean | null {
    return this.stores.redisUp();
  }

  /** True from the call of stop() on: config applies are refused then. */
  get isStopping(): boolean {
    return this.stopping !== null;
  }

  /**
   * Applies a validated config's hot sections: sinks are added, replaced or removed by
   * tag, the route is reconfigured. A removed sink's backlog stays in its outbox;
   * adding the same tag again resumes its delivery. Emits config.changed. Applies run
   * one at a time in arrival order, each from the sinks the one before left: two
   * overlapping ones would otherwise both replace the same sink and leave one running.
   */
  applyConfig(next: WeirConfig): Promise<ConfigApplied> {
    return this.inTurn(() => this.apply(next));
  }

  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    const run = this.applying.then(work);
    this.applying = run.catch(() => undefined);
    return run;
  }

  private async apply(next: WeirConfig): Promise<ConfigApplied> {
    const changes = sinkChanges(this.current.event_sinks, next.event_sinks);
    // While the sinks are swapped, the file keeps each replaced tag's mark from before
    // (its new sink goes on from where the old one stopped) and an added tag's from now.
    const added = Object.fromEntries(changes.added.map((c) => [c.tag, this.bus.lastSequence]));
    const { removedPending } = await this.keeper.marks.holding({ ...this.keptMarks(), ...added }, () => this.swap(changes), () => this.keptMarks());
    const running = this.current;
    const routeChanged = fingerprint(running.route) !== fingerprint(next.route);
    if (routeChanged) this.router.reconfigure(routerOptions(next));
    const sinksChanged = changes.added.length + changes.replaced.length + changes.removed.length > 0;
    const changed = routeChanged || sinksChanged || running.log.level !== next.log.level || running.log.access !== next.log.access || fingerprint(running.ipc_hook) !== fingerprint(next.ipc_hook);
    const restart_required = restartRequired(running, next);
    // Only the hot parts are taken: the rest is what the node runs on (its id names its
    // queues and source_id, its inbounds are listening) until it restarts.
    this.current = withHotSections(running, next);
    // Applying the same document again changes nothing and says nothing.
    if (changed) {
      this.plane.routingChanged(true);
      this.bus.publish({ event_type: 'config.changed', payload: { changed_at_unix_ms: this.now() } });
    }
    if (restart_required.length > 0) {
      this.bus.publish({
        event_type: 'engine.warning',
        payload: { code: 'config_restart_required', message: `the config changes ${restart_required.join(', ')}, which take effect only on a restart; the node runs on the values it started with` },
      });
    }
    return { changed, sinks: { ...shownChanges(changes), removed_pending: removedPending }, route_changed: routeChanged, restart_required };
  }

  /** Replaces, adds and removes sinks by tag (swapSinks); the engine runs the new list from then on. */
  private async swap(changes: SinkChanges): ReturnType<typeof swapSinks> {
    const swapped = await swapSinks(this.sinks, changes, {
      build: (c, previous) => this.sinkOf(c, previous),
      lastSequence: () => this.bus.lastSequence,
      missed: this.missed,
      startFailed: (tag, err) =>
        this.bus.publish({
          event_type: 'engine.warning',
          payload: { code: 'sink_start_failed', message: `sink "${tag}" could not start (${err instanceof Error ? err.message : String(err)}); retrying every ${SINK_START_RETRY_MS / 1000} s` },
        }),
    });
    this.sinks = swapped.sinks;
    return swapped;
  }

  async start(): Promise<void> {
    const uncleanStop = carryUncleanStop({ left: this.leftMarks, sequences: this.sequences, missed: this.missed, log: this.opts.log, now: this.now });
    // Written before any sink starts (an outbox may take seconds to open): a crash from
    // here on is counted from this run's marks, never again from the carried ones.
    this.keeper.marks.saveNow(this.keptMarks());
    // Each from the run's first sequence: what opening an outbox publishes (redis_unreachable,
    // outbox_lost) comes before that sink's and the next ones' dispatchers start, and
    // would reach none of them but from the ring.
    for (const sink of this.sinks) await this.missed.start(sink, this.sequences.first - 1);
    const tick$ = nodeTick(this.opts.tickMs ?? 1000, this.now, (at) => this.table.poll(at));
    const access = new AccessLog(this.opts.log, () => this.current.log.access);
    this.wiring.add(
      this.table.changes$
        .pipe(
          tap((change) => {
            this.stats.observe(change);
            access.observe(change);
            this.principals.observe(change);
          }),
          sampleRevisions(tick$),
        )
        .subscribe((change) => {
          const published = this.bus.publish(flowEvent(change));
          if (change.kind === 'completed') {
            this.history.add({ sequence: published.sequence, principal_key: change.auth.principal_key, record: change.record });
          }
        }),
    );
    this.wiring.add(
      tick$.subscribe(() => {
        this.bus.publish({ event_type: 'stats.sampled', payload: this.statsSnapshot() });
        this.sequences.keepAhead(this.bus.lastSequence);
        this.keeper.tick(this.sinks, this.bus.lastSequence);
        this.principalStore.tick(this.principals, this.now());
      }),
    );
    // Restored before the inbounds open, so the first flows use the saved choices.
    this.detachSelections = persistSelections(this.outbounds, new SelectionStore(this.config.node.state_dir), (e) =>
      this.bus.publish(e),
    );
    await this.plane.start();
    this.bus.publish({
      event_type: 'engine.started',
      payload: { build_id: this.opts.build.git_hash, started_at_unix_ms: this.startedAt },
    });
    if (uncleanStop) this.bus.publish({ event_type: 'engine.warning', payload: { code: 'unclean_stop', message: uncleanStop } });
    void this.probes.start();
    this.opts.log.info({ inbounds: this.inbounds.map((i) => ({ tag: i.tag, ...i.address() })) }, 'engine started');
  }

  private keptMarks(): Marks {
    return keptMarks(this.sinks, this.bus.lastSequence);
  }

  /** Starts every principal's since_reset window over, and keeps that at once. */
  async resetPrincipals(): Promise<{ reset_at_unix_ms: number }> {
    const reset = this.principals.reset(this.now());
    await this.principalStore.saveNow(this.principals);
    return reset;
  }

  statsSnapshot(): ReturnType<FlowStats['snapshot']> {
    return this.stats.snapshot(this.table.records());
  }

  /**
   * Stops accepting, ends open flows, emits engine.stopped and flushes the sinks, waiting
   * for flows, Redis and receivers at most STOP_WAIT_MS in all. Idempotent.
   */
  stop(reason: string): Promise<void> {
    this.stopping ??= this.shutdown(reason);
    return this.stopping;
  }

  private async shutdown(reason: string): Promise<void> {
    this.deadline.begin(STOP_WAIT_MS);
    await this.plane.stopAccepting();
    await this.table.closeAll('shutdown', this.deadline.leftMs(SHUTDOWN_FLOW_GRACE_MS));
    await this.plane.stop();
    await this.probes.stop();
    this.detachSelections();
    const stoppedAt = this.now();
    this.bus.publish({ event_type: 'engine.stopped', payload: { stopped_at_unix_ms: stoppedAt, reason } });
    this.wiring.unsubscribe();
    // Every flow has completed or been given up on: the counts are final for this run.
    await this.principalStore.saveNow(this.principals);
    // After an apply in progress, so the sinks it starts are stopped too.
    await this.inTurn(() => Promise.all(this.sinks.map((s) => (s.stopAtShutdown ? s.stopAtShutdown() : s.stop()))));
    await this.stores.close();
    // Once every sink has kept what it took: a stop that breaks off before here is
    // counted as a crash at the next start, one after it loses nothing.
    await this.keeper.stopped(this.sinks);
    this.bus.complete();
    this.sequences.close(this.bus.lastSequence);
    this.opts.log.info({ reason }, 'engine stopped');
  }
}
