import { filter, map, type Observable } from 'rxjs';
import { OUTCOMES, type FlowRecord, type Outcome, type RouteMode, type StatsSnapshot } from '../../streams/contract.js';
import type { PublishedEvent } from '../../streams/published-event.js';
import type { SequenceRange } from '../../streams/event-bus.js';
import { recordSlices } from '../../streams/records-json.js';
import { resumeEvents, type ResumedEvents } from '../../streams/subscription.js';
import { typeFilter } from '../../streams/type-filter.js';
import type { ConfigSource } from '../config/config-source.js';
import type { ConfigProblem } from '../config/problems.js';
import type { OutboundConfig, WeirConfig } from '../config/schema.js';
import { LOG_LEVELS } from '../config/schema-node.js';
import { weirVersion, type BuildInfo } from '../engine/build-info.js';
import type { ConfigApplied } from '../engine/engine.js';
import type { DeadLetter } from '../contracts/outbox.js';
import { applyBody, configInvalid } from './config-apply.js';
import { routeOutboundsNotRunning } from './running-outbounds.js';
import type { Engine } from '../engine/engine.js';
import type { ConnectorState } from '../contracts/sink.js';
import type { DeliveryAck } from '../sinks/delivery-acks.js';
import { SelectorPolicy } from '../outbounds/selector-policy.js';
import { UrlTestPolicy } from '../outbounds/url-test-policy.js';
import type { ProbeCompletedPayload } from '../policies/policy-events.js';
import type { MemberProbe } from '../policies/probe-member.js';
import { probeTarget, type ProbeTarget } from '../policies/probe-target.js';
import type { HistoryFilter, HistoryPage } from '../flows/flow-history.js';
import { pageAfter } from '../flows/opening-page.js';
import type { PrincipalsView } from '../principals/principal-ledger.js';
import { ControlError } from './control-error.js';
import { eventsPageJson, type EventsPageQuery } from './events-page.js';
import { auditTrail, type AuditRecorder } from './audit-trail.js';
import { hotChanges } from '../config/config-diff.js';
import type { Logger } from 'pino';
import { deadLettersOf, queueViewOf, replayDeadLettersOf, type QueueView } from './webhook-backlog.js';

export interface RuntimeContext {
  build: BuildInfo;
  /** Where the config comes from; config.apply and reload validate against it. */
  configSource: ConfigSource;
  configPath: string | null;
  logFiles: string[];
  getLogLevel(): string;
  setLogLevel(level: string): void;
  /** Where a reload says what it changed. */
  log: Logger;
}

export interface PolicyView {
  tag: string;
  kind: 'selector' | 'url_test';
  members: readonly string[];
  /** The member the group uses now (for a selector, possibly a group's tag). */
  selected: string;
}

const LOG_LEVEL_SET: ReadonlySet<string> = new Set(LOG_LEVELS);
const OUTCOME_SET: ReadonlySet<string> = new Set(OUTCOMES);

/** A page of the completed-flow history as HTTP and IPC ask for it: `before` a sequence or a flow id. */
export interface CompletedFlowsQuery extends Omit<HistoryFilter, 'outcome'> {
  outcome?: string;
  limit?: number;
  before?: number | string;
}

/** A page of the active flows: those opened after the opening number `after` (default 0). */
export interface ActiveFlowsQuery {
  limit?: number;
  after?: number;
}

/** A page of the active flows as JSON array elements a slice at a time, and the next page's `after`. */
export interface ActiveFlowPage {
  slices: AsyncGenerator<string>;
  next: number | null;
}

/** Default and largest page of a flow listing (active flows, completed-flow history). */
export const FLOW_PAGE = { default: 100, max: 1000 } as const;

/**
 * The one set of control operations; HTTP and IPC are thin transports over it.
 * Every failure is a ControlError with a registry code.
 */
export class ControlOps {
  /** Records a control write of any transport: a `control.audit` event and a log line. */
  readonly audit: AuditRecorder;

  constructor(
    private readonly engine: Engine,
    private readonly runtimeCtx: RuntimeContext,
  ) {
    this.audit = auditTrail((event) => engine.bus.publish(event), engine.log);
  }

  health(): { status: 'ok'; uptime_ms: number } {
    return { status: 'ok', uptime_ms: Date.now() - this.engine.startedAt };
  }

  runtime(): Record<string, unknown> {
    const ctx = this.runtimeCtx;
    return {
      node_id: this.engine.config.node.id,
      version: weirVersion(),
      build: ctx.build,
      pid: process.pid,
      started_at_unix_ms: this.engine.startedAt,
      uptime_ms: Date.now() - this.engine.startedAt,
      config_path: ctx.configPath,
      log_level: ctx.getLogLevel(),
      log_files: ctx.logFiles,
      mode: this.engine.router.mode,
      inbounds: this.engine.inbounds.map((i) => ({ tag: i.tag, protocol: i.protocol, listen: i.address() })),
      workers: this.engine.workers(),
      memory: memoryOf(process.memoryUsage()),
    };
  }

  stats(): StatsSnapshot {
    return this.engine.statsSnapshot();
  }

  /** Per principal_key: flows active, and traffic and flows since this run started and since the last reset. */
  principals(): PrincipalsView {
    return this.engine.principals.view();
  }

  /** Starts the since_reset window of every principal over. */
  resetPrincipals(): Promise<{ reset_at_unix_ms: number }> {
    this.refuseWhileStopping();
    return this.engine.resetPrincipals();
  }

  /** The active flows' records as of the call, as JSON array elements a slice at a time (recordSlices). */
  flowSlices(stopped?: () => boolean): AsyncGenerator<string> {
    return recordSlices(this.engine.table.activeRecords(), stopped);
  }

  /**
   * A page of the active flows as of the call, in opening order (pageAfter): `next` is
   * an opening number, so it keeps its place when the flow it came from has ended.
   */
  activeFlowPage(q: ActiveFlowsQuery, stopped?: () => boolean): ActiveFlowPage {
    const page = pageAfter(this.engine.table.openedRecords(), q.after ?? 0, q.limit ?? FLOW_PAGE.default);
    return { slices: recordSlices(page.items, stopped), next: page.next };
  }

  /** The active flows' records as of the call (the table's own objects: read, never change them). */
  activeFlows(): readonly FlowRecord[] {
    return this.engine.table.activeRecords();
  }

  /** Each flow's final record as it completes (from the flow table, before any sampling). */
  completedFlows$(): Observable<FlowRecord> {
    return this.engine.table.changes$.pipe(
      filter((change) => change.kind === 'completed'),
      map((change) => change.record),
    );
  }

  /** Each request a sink's receiver acknowledged, with the events it carried. */
  deliveryAcks$(): Observable<DeliveryAck> {
    return this.engine.acks.asObservable();
  }

  /** Whether the outbox reaches Redis now; false before a Webhook sink opened it, null without `redis`. */
  redisUp(): boolean | null {
    return this.engine.redisUp();
  }

  /** Every event as the bus publishes it, live only: for counting, not for delivery. */
  published$(): Observable<PublishedEvent> {
    return this.engine.bus.events$;
  }

  /**
   * Recent completed flows, newest first, from the bounded history (flows.history_size):
   * each with its flow.completed sequence and principal_key. `before` pages on from a
   * sequence, or from a flow id the history still holds.
   */
  completedFlows(q: CompletedFlowsQuery): HistoryPage {
    const history = this.engine.history;
    if (q.outcome !== undefined && !OUTCOME_SET.has(q.outcome)) {
      throw new ControlError('BAD_REQUEST', `outcome must be one of ${OUTCOMES.join(', ')}`);
    }
    let before = q.before;
    if (typeof before === 'string') {
      before = history.sequenceOf(before);
      if (before === undefined) throw new ControlError('NOT_FOUND', `flow "${q.before as string}" is not in the completed-flow history`);
    }
    return history.page({ ...q, outcome: q.outcome as Outcome | undefined, before, limit: q.limit ?? FLOW_PAGE.default });
  }

  flow(flowId: string): FlowRecord {
    const actor = this.engine.table.get(flowId);
    if (!actor) throw new ControlError('FLOW_NOT_FOUND', `no active flow "${flowId}"`);
    return actor.record;
  }

  /** flows.close: the flow ends `cancelled` with close_reason `manual`. */
  closeFlow(flowId: string): { flow_id: string; closing: true } {
    if (!this.engine.table.close(flowId, 'manual')) throw new ControlError('FLOW_NOT_FOUND', `no active flow "${flowId}"`);
    return { flow_id: flowId, closing: true };
  }

  /** flows.close for every active flow; returns how many were asked to close. */
  closeAllFlows(): number {
    let closing = 0;
    for (const { flow_id } of this.engine.table.activeRecords()) {
      try {
        this.closeFlow(flow_id);
        closing++;
      } catch (err) {
        // Ended between the listing and its turn: nothing left to close.
        if (!(err instanceof ControlError && err.code === 'FLOW_NOT_FOUND')) throw err;
      }
    }
    return closing;
  }

  /** The tags of the inbounds the node listens on. */
  inboundTags(): string[] {
    return this.engine.inbounds.map((i) => i.tag);
  }

  /** The outbounds the node runs on and the route in force, for views that describe them. */
  routing(): { outbounds: readonly OutboundConfig[]; route: WeirConfig['route'] } {
    return { outbounds: this.engine.config.outbounds, route: this.engine.config.route };
  }

  mode(): { mode: RouteMode; global_target: string | null } {
    return this.engine.router.mode;
  }

  logLevel(): string {
    return this.runtimeCtx.getLogLevel();
  }

  policies(): PolicyView[] {
    return Array.from(this.engine.outbounds.policies.values(), (p) => ({
      tag: p.tag,
      kind: p.kind,
      members: p.members,
      selected: p.current(),
    }));
  }

  /** Switches a selector to one of its direct members and emits policy.selected. */
  select(selectorTag: string, memberTag: string): { policy_tag: string; selected: string; previous: string } {
    const policy = this.engine.outbounds.policies.get(selectorTag);
    if (policy instanceof UrlTestPolicy) {
      throw new ControlError('POLICY_NOT_FOUND', `"${selectorTag}" is a url_test group, not a selector: its choice follows its probes`);
    }
    if (!(policy instanceof SelectorPolicy)) {
      throw new ControlError('POLICY_NOT_FOUND', `no selector "${selectorTag}"`);
    }
    if (!policy.members.includes(memberTag)) {
      throw new ControlError('NOT_A_MEMBER', `"${memberTag}" is not a direct member of selector "${selectorTag}"`, {
        members: policy.members,
      });
    }
    const previous = policy.select(memberTag);
    // policy.selected tells of a switch: choosing the member already chosen is none.
    if (previous !== memberTag) {
      this.engine.bus.publish({
        event_type: 'policy.selected',
        payload: { policy_tag: selectorTag, policy_kind: 'selector', selected: memberTag, previous },
      });
    }
    return { policy_tag: selectorTag, selected: memberTag, previous };
  }

  /** A manual url_test round (trigger `manual`); joins a round already running. */
  async probe(tag: string): Promise<ProbeCompletedPayload> {
    if (!(this.engine.outbounds.policies.get(tag) instanceof UrlTestPolicy)) {
      throw new ControlError('POLICY_NOT_FOUND', `no url_test group "${tag}"`);
    }
    try {
      return await this.engine.probes.probe(tag);
    } catch (err) {
      throw new ControlError('UNAVAILABLE', err instanceof Error ? err.message : 'probe failed');
    }
  }

  /**
   * One probe of an outbound (a group through its current leaf) against `url`, as a
   * url_test round probes a member; it changes no choice and publishes nothing.
   */
  probeOutbound(tag: string, url: string, timeoutMs: number): Promise<MemberProbe> {
    if (!this.engine.outbounds.has(tag)) throw new ControlError('TAG_NOT_FOUND', `no outbound "${tag}"`);
    let target: ProbeTarget;
    try {
      target = probeTarget(url);
    } catch (err) {
      throw new ControlError('BAD_REQUEST', err instanceof TypeError ? 'the probe url is not a valid URL' : (err as Error).message);
    }
    return this.engine.probes.probeOnce(tag, target, timeoutMs);
  }

  /** Sets the routing mode for the flows that start after it. */
  setMode(mode: string, target?: string | null): { mode: RouteMode; global_target: string | null } {
    if (mode === 'rule') this.engine.setMode('rule', null);
    else if (mode === 'global') {
      if (!target) throw new ControlError('INVALID_BODY', 'mode global needs a target tag');
      if (!this.engine.outbounds.has(target)) throw new ControlError('TAG_NOT_FOUND', `no outbound "${target}"`);
      this.engine.setMode('global', target);
    } else throw new ControlError('INVALID_BODY', `mode must be "rule" or "global", not "${mode}"`);
    return this.engine.router.mode;
  }

  setLogLevel(level: string): { log_level: string } {
    if (!LOG_LEVEL_SET.has(level)) throw new ControlError('INVALID_BODY', `log level must be one of ${LOG_LEVELS.join(', ')}`);
    this.runtimeCtx.setLogLevel(level);
    return { log_level: level };
  }

  /** The sinks' states as last read (no wait). */
  sinks(): ConnectorState[] {
    return this.engine.sinks.map((s) => s.state());
  }

  /** The sinks' states, read now where a read costs (Redis: once a second for every asker). */
  async freshSinks(): Promise<ConnectorState[]> {
    await Promise.all(this.engine.sinks.map((s) => s.refreshState?.()));
    return this.sinks();
  }

  /** config.apply: validates the body's sections all or nothing, persists them, applies them. */
  async applyConfig(body: unknown): Promise<ConfigApplied> {
    this.refuseWhileStopping();
    return this.applyValidated(applyBody(this.runtimeCtx.configSource, body, (c) => this.notRunning(c)));
  }

  /** Reloads the config file (SIGHUP, `weir reload`): the hot sections take effect, others need a restart. */
  async reload(): Promise<ConfigApplied> {
    this.refuseWhileStopping();
    const result = this.runtimeCtx.configSource.load((c) => this.notRunning(c));
    if (!result.ok) throw configInvalid(result.problems);
    const running = this.engine.config;
    const applied = await this.applyValidated(result.config);
    const changed = hotChanges(running, result.config);
    const msg = `configuration reloaded: ${changed.length === 0 ? 'nothing changed' : `${changed.join(', ')} changed`}`;
    if (applied.restart_required.length === 0) this.runtimeCtx.log.info({ applied, changed }, msg);
    else this.runtimeCtx.log.warn({ applied, changed }, `${msg}; restart needed for: ${applied.restart_required.join(', ')}`);
    return applied;
  }

  private notRunning(config: WeirConfig): ConfigProblem[] {
    return routeOutboundsNotRunning(config, (tag) => this.engine.outbounds.has(tag));
  }

  /** Before anything is persisted: sinks an apply started after the engine's shutdown stopped them would run on. */
  private refuseWhileStopping(): void {
    if (this.engine.isStopping) throw new ControlError('UNAVAILABLE', 'the node is stopping; the config was not changed');
  }

  private async applyValidated(config: Parameters<Engine['applyConfig']>[0]): Promise<ConfigApplied> {
    const applied = await this.engine.applyConfig(config);
    this.runtimeCtx.setLogLevel(config.log.level);
    return applied;
  }

  /** A Webhook sink's dead letters, oldest first. */
  deadLetters(tag: string, limit = 100): Promise<DeadLetter[]> {
    return deadLettersOf(this.engine.config, this.engine.sinks, tag, limit);
  }

  /** Makes dead letters (all, or the given event ids) pending again. */
  replayDeadLetters(tag: string, ids?: readonly string[]): Promise<{ sink: string; replayed: number }> {
    return replayDeadLettersOf(this.engine.config, this.engine.sinks, tag, ids);
  }

  /** Where the Webhook sinks' BullMQ queues live, for the backlog dashboard; null without Redis. */
  queueView(): QueueView | null {
    return queueViewOf(this.engine.config);
  }

  /** Replay from the ring as one JSON body, and the replay gap of `since` (events-page.ts). */
  eventsJson(q: EventsPageQuery): { json: Buffer; gap: SequenceRange | null } {
    return eventsPageJson(this.engine.bus, q);
  }

  /**
   * A live subscription: replay after `since`, the flow.snapshot baseline, then live
   * events; and the replay gap of that `since`, for the stream's first words.
   */
  subscribe(opts: { types?: readonly string[] | null; since?: number | null }): ResumedEvents {
    return resumeEvents(this.engine.bus, () => this.engine.table.activeRecords(), {
      filter: typeFilter(opts.types),
      since: opts.since ?? null,
    });
  }
}

/** The process's memory for a monitor; `heap_used_bytes` is the JavaScript heap. */
function memoryOf(m: NodeJS.MemoryUsage): Record<string, number> {
  return { rss_bytes: m.rss, heap_used_bytes: m.heapUsed, heap_total_bytes: m.heapTotal, external_bytes: m.external };
}
