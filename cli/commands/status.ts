import type { WorkerView } from '../../actors/engine/data-plane.js';
import type { ConnectorState } from '../../actors/contracts/sink.js';
import type { StatsSnapshot } from '../../streams/contract.js';
import { age, bytes, count, keyValues, printJson, table } from '../format.js';
import { callNode } from '../call-node.js';
import type { ClientFlags } from '../socket-path.js';
import { EXIT } from '../exit-codes.js';

interface InboundView {
  tag: string;
  protocol: string;
  listen: { host: string; port: number } | null;
}

/** The fields of the node's status this view reads; `--json` prints the whole of it. */
interface RuntimeView {
  node_id: string;
  version: string;
  pid: number;
  uptime_ms: number;
  config_path: string | null;
  log_level: string;
  log_files: string[];
  mode: { mode: string; global_target: string | null };
  inbounds: InboundView[];
  /** node.workers above 1: the worker processes; null when the node runs its flows itself. */
  workers: WorkerView[] | null;
  memory: { rss_bytes: number; heap_used_bytes: number; heap_total_bytes: number };
}

function showWorker(w: WorkerView, now: number): string {
  return `${w.id}: pid ${w.pid}, ${count(w.active_flows)} active, ${count(w.started_flows)} started, up ${age(Math.max(0, now - w.started_at_unix_ms))}`;
}

function showInbound(i: InboundView): string {
  return `${i.tag} (${i.protocol}) ${i.listen ? `${i.listen.host}:${i.listen.port}` : 'not listening'}`;
}

/** One `key  value` line per fact; a list (the inbounds) one line per item under its key. */
function facts(r: RuntimeView, s: StatsSnapshot): [string, string][] {
  const inbounds = r.inbounds.length === 0 ? ['-'] : r.inbounds.map(showInbound);
  const now = Date.now();
  const workers = r.workers === null ? [] : r.workers.length === 0 ? ['none running'] : r.workers.map((w) => showWorker(w, now));
  return [
    ['node', r.node_id],
    ['version', r.version],
    ['pid', String(r.pid)],
    ['uptime', age(r.uptime_ms)],
    ['mode', r.mode.mode === 'global' ? `global -> ${r.mode.global_target}` : r.mode.mode],
    ['config', r.config_path ?? '(built-in default)'],
    ['log_level', r.log_level],
    ['log_files', r.log_files.join(', ') || '-'],
    ...inbounds.map((line, i): [string, string] => [i === 0 ? 'inbounds' : '', line]),
    ...workers.map((line, i): [string, string] => [i === 0 ? 'workers' : '', line]),
    ['rss', bytes(r.memory.rss_bytes)],
    ['heap', `${bytes(r.memory.heap_used_bytes)} of ${bytes(r.memory.heap_total_bytes)}`],
    ['flows', `${count(s.active_sessions)} active, ${count(s.total_started)} started`],
    ['outcomes', `${count(s.completed_sessions)} completed, ${count(s.failed_sessions)} failed, ${count(s.blocked_sessions)} blocked`],
    ['traffic', `${bytes(s.bytes_up)} up, ${bytes(s.bytes_down)} down`],
  ];
}

/** Whether deliveries succeeded after the sink's last error: the error is past. */
function recovered(k: ConnectorState): boolean {
  return !!k.last_error && typeof k.last_delivered_at_unix_ms === 'number' && k.last_delivered_at_unix_ms > k.last_error.at_unix_ms;
}

/** The sink now: writes paused by disk protection (with the reason), failing since its last error, or ok. */
function sinkState(k: ConnectorState): string {
  if (k.outbox_storage.write_blocked) return `write blocked: ${k.outbox_storage.write_blocked_reason ?? 'unknown'}`;
  return k.last_error && !recovered(k) ? 'failing' : 'ok';
}

/** The last error with its age, `past:` once deliveries succeeded after it. */
function lastError(k: ConnectorState, now: number): string {
  if (!k.last_error) return '-';
  const when = `${k.last_error.message} (${age(Math.max(0, now - k.last_error.at_unix_ms))} ago)`;
  return recovered(k) ? `past: ${when}` : when;
}

function sinkTable(sinks: readonly ConnectorState[]): string {
  if (sinks.length === 0) return 'no event sinks\n';
  const now = Date.now();
  const rows = sinks.map((k) => [k.tag, k.type, sinkState(k), count(k.pending), count(k.total_delivered), count(k.total_failed), lastError(k, now)]);
  return table(['sink', 'type', 'state', 'pending', 'delivered', 'failed', 'last_error'], rows);
}

/**
 * `weir status`: the node at a glance, one fact per line in units (uptime, memory,
 * flow counts, traffic), then the event sinks as a table. `--json` prints the same
 * facts for scripts: the node's status object, with `stats` (flows, traffic) and `sinks`.
 */
export async function statusCommand(flags: ClientFlags): Promise<number> {
  const [runtime, stats, sinks] = await Promise.all([
    callNode(flags, { op: 'status' }) as Promise<RuntimeView>,
    callNode(flags, { stats: {} }) as Promise<StatsSnapshot>,
    callNode(flags, { op: 'sinks' }) as Promise<ConnectorState[]>,
  ]);
  if (flags.json) {
    printJson({ ...runtime, stats, sinks });
    return EXIT.ok;
  }
  process.stdout.write(`${keyValues(facts(runtime, stats))}\n${sinkTable(sinks)}`);
  return EXIT.ok;
}
