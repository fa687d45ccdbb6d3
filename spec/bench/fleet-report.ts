import type { FleetMember } from '../../actors/fleet/read-fleet.js';
import type { Delivered } from './fleet-arrivals.js';
import type { SpreadLoad } from './fleet-nodes.js';

/** What one run of the simulation measured. */
export interface FleetMeasurements {
  readonly nodes: number;
  readonly workers: number;
  /** The Redis in a few words: `one Redis`, `a Redis Cluster of 3 masters and 3 replicas`. */
  readonly redis: string;
  /** Load clients' concurrency per node and the load's length. */
  readonly concurrency: number;
  readonly loadMs: number;
  readonly idleMs: number;
  /** used_memory (summed over the masters) with the nodes idle less that before they started, per node. */
  readonly idleBytesPerNode: number;
  /** INFO commandstats calls per second of an idle window, per node: the nodes alone, then with the workers. */
  readonly idleCommandsPerNode: number;
  readonly idleCommandsPerNodeWithWorkers: number;
  readonly pending: number;
  /** used_memory (summed over the masters), and MEMORY USAGE of the nodes' keys, per pending event. */
  readonly bytesPerPending: number;
  readonly keyBytesPerPending: number;
  /** The workers taking the backlog the nodes left while none ran. */
  readonly drain: Delivered;
  readonly load: SpreadLoad;
  /** The events of the load, from its start to the last acknowledgement. */
  readonly delivered: Delivered;
  /** Over the same span, per event delivered: weir's Redis commands, the masters' CPU and the workers' CPU (ms). */
  readonly commandsPerEvent: number;
  readonly redisCpuMsPerEvent: number;
  readonly workerCpuMsPerEvent: number;
  readonly killed: readonly string[];
  readonly fleetBefore: readonly FleetMember[];
  readonly fleetAtKill: readonly FleetMember[];
  readonly fleetAfter: readonly FleetMember[];
  /** From the kill -9 until `weir fleet` showed both killed nodes stale; null if it did not within the wait. */
  readonly staleAfterMs: number | null;
  /** flow.completed in the killed nodes' archives, and how many of those the receiver acknowledged before their restart. */
  readonly killedArchived: number;
  readonly killedDelivered: number;
}

export interface ReportRow {
  readonly figure: string;
  readonly value: string;
  readonly note: string;
}

/** A number with `digits` decimals and thousands separators; `-` for none. */
export function num(value: number | null, digits = 0): string {
  if (value === null || !Number.isFinite(value)) return '-';
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Rows of cells as aligned columns: the first left-aligned, the others right-aligned. */
export function columns(cells: readonly (readonly string[])[]): string {
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((c) => c[i]!.length)));
  return cells.map((c) => c.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ')).join('\n');
}

/** `weir fleet --json` in a few words: `4 up, 2 stale (fleet-5, fleet-6)`. */
export function fleetStates(members: readonly FleetMember[]): string {
  const up = members.filter((m) => m.state === 'up').length;
  const stale = members.filter((m) => m.state === 'stale').map((m) => m.node_id);
  return `${up} up, ${stale.length} stale${stale.length ? ` (${stale.join(', ')})` : ''}`;
}

export function reportRows(m: FleetMeasurements): ReportRow[] {
  const killed = m.killed.join(', ');
  return [
    { figure: 'nodes / weir deliver workers', value: `${m.nodes} / ${m.workers}`, note: `${m.redis} (AOF always), one receiver, all on loopback` },
    {
      figure: 'events/s end to end',
      value: num(m.delivered.perSecond),
      note: `${num(m.delivered.events)} flow.completed acknowledged, load start to last ack; offered ${num(m.load.perSecond)} flows/s (${m.concurrency}/node, ${num(m.loadMs / 1000)} s, ${m.load.failed} failed)`,
    },
    { figure: 'delivery latency p50', value: `${num(m.delivered.p50Ms)} ms`, note: 'occurred_at_unix_ms to arrival at the receiver' },
    { figure: 'delivery latency p99', value: `${num(m.delivered.p99Ms)} ms`, note: 'same events' },
    { figure: 'Redis commands per event', value: num(m.commandsPerEvent, 1), note: 'INFO commandstats calls on the masters over the same span / events' },
    { figure: 'Redis CPU per event', value: `${num(m.redisCpuMsPerEvent, 3)} ms`, note: 'used_cpu_user + used_cpu_sys of the masters (AOF fsync included), same span' },
    { figure: 'weir deliver CPU per event', value: `${num(m.workerCpuMsPerEvent, 3)} ms`, note: `the ${m.workers} workers' process CPU time, same span` },
    { figure: 'backlog drain', value: `${num(m.drain.perSecond)} ev/s`, note: `${num(m.drain.events)} pending events, from the workers' start to the last ack` },
    { figure: 'Redis memory per pending event', value: `${num(m.bytesPerPending)} B`, note: `used_memory delta over ${num(m.pending)} pending flow.completed, no worker running` },
    { figure: '  keys alone', value: `${num(m.keyBytesPerPending)} B`, note: "MEMORY USAGE of the nodes' keys, the same delta" },
    { figure: 'Redis memory per idle node', value: `${num(m.idleBytesPerNode / 1024, 1)} KiB`, note: 'used_memory with the nodes idle less before they started, / nodes' },
    { figure: 'Redis commands/s per idle node', value: num(m.idleCommandsPerNode, 2), note: `INFO commandstats calls over ${num(m.idleMs / 1000)} s idle / nodes, no worker running` },
    {
      figure: '  the same with the workers',
      value: num(m.idleCommandsPerNodeWithWorkers, 2),
      note: `${m.workers} weir deliver running, each with a worker per node's queue`,
    },
    { figure: 'weir fleet before kill -9', value: fleetStates(m.fleetBefore), note: '' },
    { figure: 'weir fleet at kill -9', value: fleetStates(m.fleetAtKill), note: `${killed} killed; a presence stands until its TTL` },
    {
      figure: 'weir fleet after the TTL',
      value: fleetStates(m.fleetAfter),
      note: m.staleAfterMs === null ? 'the killed nodes did not go stale within the wait' : `both stale ${num(m.staleAfterMs / 1000, 1)} s after the kill`,
    },
    {
      figure: "killed nodes' events delivered",
      value: `${num(m.killedDelivered)} / ${num(m.killedArchived)}`,
      note: 'flow.completed in their JSONL archives the workers delivered while the nodes were down',
    },
  ];
}

/** The rows as a plain-text table: the figure left-aligned, the value right-aligned, then the note. */
export function formatReport(rows: readonly ReportRow[]): string {
  const header: ReportRow = { figure: 'FIGURE', value: 'VALUE', note: 'NOTE' };
  const all = [header, ...rows];
  const fw = Math.max(...all.map((r) => r.figure.length));
  const vw = Math.max(...all.map((r) => r.value.length));
  return all.map((r) => `${r.figure.padEnd(fw)}  ${r.value.padStart(vw)}  ${r.note}`.trimEnd()).join('\n');
}
