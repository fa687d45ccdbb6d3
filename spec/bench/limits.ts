// Issue 25: whether an operator still reaches the control plane of a node under load:
// many idle tunnels held and new connections arriving, then thousands of idle
// connections held to the control plane itself.
import { setTimeout as sleep } from 'node:timers/promises';
import { freePorts } from '../support/free-port.js';
import { holdIdle } from './limits-holder.js';
import { probe } from './limits-probe.js';
import { formatProbe, summarizeProbe, type ProbeSummary } from './limits-report.js';
import { runLoad } from './load-runner.js';
import { startPeer, WEIR_API_KEY, weirPeer } from './peers.js';
import { treeCpuTicks, treeRssKiB } from './proc-stats.js';
import { targetOf } from './measure.js';
import { idleJob, quiet, rateRun, type Load } from './proxy-steps.js';

export interface LimitsSettings {
  /** Idle SOCKS5 tunnels held through the node while the rate load runs. */
  readonly tunnels: number;
  readonly tunnelConcurrency: number;
  /** New SOCKS5 connections a second, each a short echo, for rateMs, at most rateConcurrency under way. */
  readonly perSecond: number;
  readonly rateConcurrency: number;
  readonly rateMs: number;
  /** Idle connections held to the control plane, and for how long after they are all open. */
  readonly controlIdle: number;
  readonly controlHoldMs: number;
  /** The operator's probe: health every healthEveryMs; the flows' first page (and the whole listing) every flowsEveryMs. */
  readonly healthEveryMs: number;
  readonly flowsEveryMs: number;
  /** Whether the whole flow listing is probed beside its first page. */
  readonly wholeListing: boolean;
  readonly budgetMs: number;
}

export interface LimitsPhase {
  readonly name: 'tunnels' | 'control';
  readonly load: string;
  readonly probes: ProbeSummary[];
  /** The node's CPU over the phase, in cores. */
  readonly nodeCores: number;
  readonly nodeRssMiB: number;
}

export interface LimitsResult {
  readonly phases: LimitsPhase[];
  readonly notes: string[];
}

const say = (line: string): void => console.log(`limits: ${line}`);

/** The operator's requests: health, the first page of the flows, and (wholeListing) the whole listing. */
function probed(s: LimitsSettings): { path: string; everyMs: number }[] {
  return [
    { path: '/api/v1/health', everyMs: s.healthEveryMs },
    ...(s.wholeListing ? [{ path: '/api/v1/flows', everyMs: s.flowsEveryMs }] : []),
    { path: '/api/v1/flows?limit=100', everyMs: s.flowsEveryMs },
  ];
}

/** The operator's requests (probed), each at its own interval until `until` settles. */
async function probeAll(port: number, s: LimitsSettings, until: Promise<unknown>): Promise<ProbeSummary[]> {
  const requests = probed(s);
  const samples = await Promise.all(requests.map((r) => probe({ port, path: r.path, apiKey: WEIR_API_KEY }, r.everyMs, until)));
  return requests.map((r, i) => summarizeProbe(`GET ${r.path}`, samples[i]!, s.budgetMs));
}

/** CPU (in cores) and RSS of the node over f. */
async function watched<R>(pid: number, f: () => Promise<R>): Promise<{ result: R; cores: number; rssMiB: number }> {
  const ticks = treeCpuTicks(pid);
  const began = performance.now();
  const result = await f();
  const cores = (treeCpuTicks(pid) - ticks) / 100 / ((performance.now() - began) / 1000);
  return { result, cores, rssMiB: treeRssKiB(pid) / 1024 };
}

function report(phase: LimitsPhase, s: LimitsSettings): void {
  say(`${phase.name}: ${phase.load}; node ${phase.nodeCores.toFixed(2)} cores, RSS ${phase.nodeRssMiB.toFixed(0)} MiB`);
  for (const p of phase.probes) say(`${phase.name}: ${formatProbe(p, s.budgetMs)}`);
}

/**
 * One weir node (as the proxy part starts it, with a control port of its own). Phase
 * tunnels: `tunnels` idle SOCKS5 tunnels held, then perSecond new connections for rateMs
 * while the probe asks for health and the flows (probed). Phase control:
 * controlIdle idle connections opened to the control plane and held, the probe running
 * from the first of them until controlHoldMs after the last.
 */
export async function benchLimits(repoRoot: string, tmp: string, l: Load, s: LimitsSettings): Promise<LimitsResult> {
  const notes: string[] = [];
  const phases: LimitsPhase[] = [];
  const [controlPort] = (await freePorts(1)) as [number];
  const node = await startPeer(weirPeer(repoRoot, { controlPort }), tmp, l.origins, 15_000);
  const target = targetOf(node);
  try {
    // Warm the JIT on the paths the load takes, then let the node settle.
    await rateRun(target, l, 50, 3000);
    await quiet(target);
    const idle = idleJob(target, l, s.tunnels, s.tunnelConcurrency, 600_000);
    let tunnels: LimitsPhase | null = null;
    const held = await runLoad(l.binary, idle, 600_000, async (h) => {
      say(`tunnels: ${h.held} idle tunnels held (${h.failed} failed)`);
      await quiet(target);
      const rate = { kind: 'rate', port: node.ports.echoOnce, proto: node.proto, target: { host: '127.0.0.1', port: l.origins.echoOncePort }, concurrency: s.rateConcurrency, ms: s.rateMs, perSecond: s.perSecond } as const;
      const { result, cores, rssMiB } = await watched(node.pid, async () => {
        const load = runLoad(l.binary, rate, s.rateMs + 30_000);
        const [probes, run] = await Promise.all([probeAll(controlPort, s, load), load]);
        return { probes, run };
      });
      const run = result.run;
      tunnels = {
        name: 'tunnels',
        load: `${h.held} idle tunnels held, ${(run.completed / run.seconds).toFixed(0)} new connections/s for ${run.seconds.toFixed(1)} s (${run.completed} completed, ${run.failed} failed, p99 ${(run.latencyUs.p99 / 1000).toFixed(1)} ms)`,
        probes: result.probes,
        nodeCores: cores,
        nodeRssMiB: rssMiB,
      };
      if (run.failed > 0) notes.push(`limits tunnels: ${run.failed} new connections failed`);
      l.origins.closeEchoes();
    });
    if (held.held < s.tunnels) notes.push(`limits tunnels: ${held.held} of ${s.tunnels} idle tunnels held`);
    if (tunnels) {
      phases.push(tunnels);
      report(tunnels, s);
    }
    await quiet(target);
    const { result, cores, rssMiB } = await watched(node.pid, async () => {
      const holding = holdIdle(controlPort, s.controlIdle, 100);
      const probes = await probeAll(controlPort, s, holding.then(() => sleep(s.controlHoldMs)));
      const holder = await holding;
      const closed = holder.closedByServer();
      holder.release();
      return { probes, holder, closed };
    });
    const control: LimitsPhase = {
      name: 'control',
      load: `${result.holder.opened} idle connections opened to the control plane (${result.holder.refused} refused), held ${s.controlHoldMs / 1000} s; the node closed ${result.closed} of them`,
      probes: result.probes,
      nodeCores: cores,
      nodeRssMiB: rssMiB,
    };
    phases.push(control);
    report(control, s);
  } finally {
    await node.stop();
  }
  for (const phase of phases) for (const p of phase.probes) if (!p.met) notes.push(`limits ${phase.name}: ${formatProbe(p, s.budgetMs)}`);
  return { phases, notes };
}
