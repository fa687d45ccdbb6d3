import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import { filter, type Subscription } from 'rxjs';
import type { DataPlane, PlaneParts, WorkerView } from '../engine/data-plane.js';
import { FlowFailureError } from '../errors/flow-failure.js';
import type { FailureCode } from '../errors/failure-codes.js';
import { routingStateOf } from './routing-state.js';
import { UdpTotals } from './udp-totals.js';
import { WorkerFlows } from './worker-flows.js';
import { WorkerInbound } from './worker-inbound.js';
import type { HubMessage, WorkerInit, WorkerMessage, WorkerSource } from './worker-messages.js';

export interface WorkerPoolOptions extends PlaneParts {
  count: number;
  source: WorkerSource;
}

const WORKER_MAIN = fileURLToPath(new URL('./worker-main.js', import.meta.url));
/** How long a worker may take from its fork to listening. */
const START_TIMEOUT_MS = 30_000;
/** How long stop waits for the workers to exit before it kills them. */
const EXIT_WAIT_MS = 3000;
/** A worker that dies within this of its start is restarted after a doubling delay, up to RESTART_MAX_MS. */
const RESTART_LIVED_MS = 5000;
const RESTART_MIN_MS = 100;
const RESTART_MAX_MS = 10_000;

interface Running {
  id: number;
  worker: Worker;
  startedAt: number;
  /** Has asked for the routing state: messages to it are read from then on. */
  ready: boolean;
  listening: { resolve: () => void; reject: (err: Error) => void } | null;
  /** Settles once the hub has taken the worker's exit (exited). */
  gone: Promise<void>;
}

/**
 * The data plane in node.workers processes (node:cluster: they share the inbound
 * listeners). The hub (this process) keeps the one table of their flows (WorkerFlows),
 * publishes their changes and events on its bus, tells them the mode and group choices,
 * and restarts a worker that exits, ending its open flows as failed (WORKER_EXITED).
 */
export class WorkerPool implements DataPlane {
  readonly table: WorkerFlows;
  readonly inbounds: WorkerInbound[];
  private readonly running = new Map<number, Running>();
  private readonly udp: UdpTotals;
  private spawned = 0;
  private stopping = false;
  private restartDelayMs = RESTART_MIN_MS;
  private readonly restarts = new Set<NodeJS.Timeout>();
  private selections: Subscription | null = null;

  constructor(private readonly opts: WorkerPoolOptions) {
    this.table = new WorkerFlows(
      (owner, flow_id, reason) => this.sendTo(owner, { t: 'close', flow_id, reason }),
      (reason) => this.broadcast({ t: 'close_all', reason }),
    );
    this.inbounds = opts.config().inbounds.map((i) => new WorkerInbound(i.tag, i.type));
    this.udp = new UdpTotals(opts.udpStats);
    // The kernel hands connections to the workers (they accept on the one shared socket)
    // unless NODE_CLUSTER_SCHED_POLICY says otherwise: round robin has the hub accept each
    // connection and pass it on, which cost more CPU than the workers could use (docs/workers.md).
    if (process.env['NODE_CLUSTER_SCHED_POLICY'] === undefined) cluster.schedulingPolicy = cluster.SCHED_NONE;
    cluster.setupPrimary({ exec: WORKER_MAIN, args: [], serialization: 'json' });
  }

  async start(): Promise<void> {
    this.selections = this.opts.events$.pipe(filter((e) => e.event_type === 'policy.selected')).subscribe(() => this.routingChanged(false));
    try {
      await Promise.all(Array.from({ length: this.opts.count }, () => this.spawn()));
    } catch (err) {
      await this.stop();
      throw err;
    }
  }

  async stopAccepting(): Promise<void> {
    this.broadcast({ t: 'stop_accepting' });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    for (const timer of this.restarts) clearTimeout(timer);
    this.selections?.unsubscribe();
    const exits = [...this.running.values()].map((r) => r.gone);
    this.broadcast({ t: 'exit' });
    const timer = setTimeout(() => {
      for (const { worker } of this.running.values()) worker.process.kill('SIGKILL');
    }, EXIT_WAIT_MS);
    await Promise.all(exits);
    clearTimeout(timer);
  }

  routingChanged(reload: boolean): void {
    this.broadcast(this.routingMessage(reload));
  }

  /** The routing state the workers follow (routing-state.ts); `reload`: they read the config's hot sections again. */
  private routingMessage(reload: boolean): HubMessage {
    return { t: 'routing', routing: routingStateOf(this.opts.routing.router, this.opts.routing.outbounds, reload) };
  }

  workers(): WorkerView[] {
    return [...this.running.values()].map((r) => {
      const flows = this.table.countOf(r.id);
      return { id: r.id, pid: r.worker.process.pid ?? 0, started_at_unix_ms: r.startedAt, active_flows: flows.active, started_flows: flows.started };
    });
  }

  /** Forks one worker; resolves once it listens on every inbound. */
  private spawn(): Promise<void> {
    const id = ++this.spawned;
    const { source, tickMs, idPrefix } = this.opts;
    // `<epoch>-<worker id>`: flow ids stay unique across the node's runs, its workers and their restarts.
    const init: WorkerInit = { id, idPrefix: `${idPrefix}-${id}`, tickMs, ...source };
    const worker = cluster.fork({ WEIR_WORKER: JSON.stringify(init) });
    let gone = (): void => {};
    const entry: Running = { id, worker, startedAt: this.opts.now(), ready: false, listening: null, gone: new Promise((resolve) => (gone = resolve)) };
    this.running.set(id, entry);
    worker.on('message', (message: WorkerMessage) => this.received(entry, message));
    worker.on('error', (err) => this.opts.log.debug({ err, worker: id }, 'worker channel error'));
    // After the messages already read: the last batch it sent is taken before its flows are ended.
    worker.on('exit', (code, signal) =>
      setImmediate(() => {
        this.exited(entry, code, signal);
        gone();
      }),
    );
    const listening = new Promise<void>((resolve, reject) => (entry.listening = { resolve, reject }));
    const late = setTimeout(() => entry.listening?.reject(new Error(`worker ${id} did not listen within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
    return listening.finally(() => clearTimeout(late));
  }

  private received(entry: Running, message: WorkerMessage): void {
    if (!this.running.has(entry.id)) return;
    switch (message.t) {
      case 'ready':
        entry.ready = true;
        this.sendTo(entry.id, this.routingMessage(false));
        return;
      case 'listening':
        for (const { tag, host, port } of message.inbounds) this.inbounds.find((i) => i.tag === tag)?.listening({ host, port });
        entry.listening?.resolve();
        entry.listening = null;
        return;
      case 'start_failed':
        entry.listening?.reject(new Error(message.message));
        entry.listening = null;
        return;
      case 'batch':
        for (const change of message.changes) this.table.take(entry.id, change);
        for (const event of message.events) this.opts.publish(event);
        if (message.udp) this.udp.report(entry.id, message.udp);
        return;
      case 'dial_failed':
        this.opts.dialFailed(message.chain, new FlowFailureError(message.code as FailureCode, message.message, undefined, { stage: message.stage }));
        return;
    }
  }

  private exited(entry: Running, code: number | null, signal: string | null): void {
    this.running.delete(entry.id);
    this.udp.exited(entry.id);
    const how = `worker ${entry.id} (pid ${entry.worker.process.pid ?? '?'}) exited (${signal ?? `code ${code}`})`;
    const ended = this.table.ownerExited(entry.id, this.opts.now(), how);
    entry.listening?.reject(new Error(`${how} before it listened`));
    if (this.stopping) return;
    const lived = this.opts.now() - entry.startedAt;
    this.restartDelayMs = lived < RESTART_LIVED_MS ? Math.min(this.restartDelayMs * 2, RESTART_MAX_MS) : RESTART_MIN_MS;
    const message = `${how}; ${ended} open flows ended as failed (WORKER_EXITED); a new worker starts in ${this.restartDelayMs} ms`;
    this.opts.log.error({ worker: entry.id, code, signal, ended }, message);
    this.opts.publish({ event_type: 'engine.warning', payload: { code: 'worker_exited', message } });
    const timer = setTimeout(() => {
      this.restarts.delete(timer);
      this.spawn().catch((err: unknown) => this.opts.log.error({ err }, 'a worker could not be restarted'));
    }, this.restartDelayMs);
    this.restarts.add(timer);
  }

  private broadcast(message: HubMessage): void {
    for (const entry of this.running.values()) if (entry.ready) this.sendTo(entry.id, message);
  }

  /** False when the worker is gone or its channel closed. */
  private sendTo(id: number, message: HubMessage): boolean {
    const entry = this.running.get(id);
    if (!entry?.worker.isConnected()) return false;
    entry.worker.send(message);
    return true;
  }
}
