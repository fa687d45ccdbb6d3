// `node dist/spec/bench/flow-alloc.js`: what one short connection costs weir beside the
// raw Node SOCKS5 relay, by code site. Each proxy runs with flow-profiler.ts loaded, takes
// FLOW_ALLOC_WARMUP_MS of short connections unprofiled, then FLOW_ALLOC_MS of them under
// a CPU profile and a heap profile that counts collected objects too. It prints the heap
// bytes and objects allocated per connection and the CPU per connection, each grouped
// by weir / package / Node internals / native, with the top sites.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../support/wait-for.js';
import { killAllNow } from './children.js';
import { envKnob } from './env-knob.js';
import { weirLoadBinary } from './native-build.js';
import { startOrigins } from './origins.js';
import { peers, startPeer, type PeerName } from './peers.js';
import { summarizeProfiles, type ProfileSummary, type Site } from './profile-summary.js';
import { rateRun, type Load } from './proxy-steps.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const TOOL = 'flow-alloc';
const WARMUP_MS = envKnob(TOOL, 'FLOW_ALLOC_WARMUP_MS', 4000);
const MEASURE_MS = envKnob(TOOL, 'FLOW_ALLOC_MS', 5000);
const HEAP_MS = envKnob(TOOL, 'FLOW_ALLOC_HEAP_MS', 3000);
const WORKERS = envKnob(TOOL, 'FLOW_ALLOC_CONCURRENCY', 50);
const TOP = envKnob(TOOL, 'FLOW_ALLOC_TOP', 15);
const PEERS: PeerName[] = ['node-socks5', 'weir'];

interface PeerCost {
  peer: PeerName;
  /** Connections completed while the CPU profile ran, and while the heap profile ran. */
  connections: number;
  heapConnections: number;
  /** CPU of the process over the profiled run, per connection (profiler included). */
  cpuUsPerConn: number;
  summary: ProfileSummary;
}

async function profilePeer(name: PeerName, load: Load, root: string): Promise<PeerCost> {
  const peer = peers(REPO).find((p) => p.name === name)!;
  const dir = fs.mkdtempSync(path.join(root, `${name}-profile-`));
  const preload = fileURLToPath(new URL('./flow-profiler.js', import.meta.url));
  // FLOW_ALLOC_NODE_OPTIONS: more node options for both proxies (a V8 flag to try).
  process.env.NODE_OPTIONS = `--import ${preload} ${process.env.FLOW_ALLOC_NODE_OPTIONS ?? ''}`;
  process.env.WEIR_PROFILE_DIR = dir;
  const running = await startPeer(peer, root, load.origins, 15_000);
  try {
    const target = { proto: running.proto, ports: running.ports, pids: [running.pid] };
    await rateRun(target, load, WORKERS, WARMUP_MS);
    const step = async (n: number): Promise<void> => {
      process.kill(running.pid, 'SIGUSR2');
      await waitFor(() => fs.existsSync(path.join(dir, `step-${n}`)) || fs.existsSync(path.join(dir, 'error')), 60_000, `${name}'s profiler`);
      if (fs.existsSync(path.join(dir, 'error'))) throw new Error(`${name}: ${fs.readFileSync(path.join(dir, 'error'), 'utf8')}`);
    };
    await step(1);
    const run = await rateRun(target, load, WORKERS, MEASURE_MS);
    await step(2);
    await step(3);
    const heapRun = await rateRun(target, load, WORKERS, HEAP_MS);
    await step(4);
    // The profiles are kept in .bench/ for a closer look (Chrome DevTools, or speedscope).
    const kept = (file: string): string => path.join(REPO, '.bench', `flow-alloc-${name}.${file.split('.')[1]}`);
    const read = (file: string): never => {
      fs.mkdirSync(path.join(REPO, '.bench'), { recursive: true });
      fs.copyFileSync(path.join(dir, file), kept(file));
      return JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8')) as never;
    };
    return {
      peer: name,
      connections: run.completed,
      heapConnections: heapRun.completed,
      cpuUsPerConn: run.cpuUs,
      summary: summarizeProfiles(read('node.cpuprofile'), read('node.heapprofile'), TOP),
    };
  } finally {
    delete process.env.NODE_OPTIONS;
    await running.stop();
  }
}

const fmt = (n: number, digits = 0): string => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function sites(title: string, list: Site[], per: number, unit: string): string[] {
  return [
    `  ${title}`,
    ...list.map((s) => `    ${fmt(s.amount / per, unit === 'B' ? 0 : 1).padStart(9)} ${unit}${s.objects === undefined ? '' : ` ${fmt(s.objects / per, 2).padStart(7)} obj`}  ${s.name}`),
  ];
}

function report(c: PeerCost): string {
  const n = Math.max(1, c.connections);
  const h = Math.max(1, c.heapConnections);
  const s = c.summary;
  return [
    `${c.peer}: CPU ${fmt(c.cpuUsPerConn)} µs/conn of the process (profiler on), ${fmt(s.cpuUs / n)} sampled on the main thread, ` +
      `over ${fmt(c.connections)} connections; heap ${fmt(s.heapBytes / h)} B and ${fmt(s.heapObjects / h, 1)} objects per connection over ${fmt(c.heapConnections)}`,
    ...sites('CPU by group (µs/conn)', s.cpuGroups, n, 'µs'),
    ...sites('CPU, top functions by self time (µs/conn)', s.cpuTop, n, 'µs'),
    ...sites('heap by group (bytes, objects per conn)', s.heapGroups, h, 'B'),
    ...sites('heap, top allocation sites (bytes, objects per conn)', s.heapTop, h, 'B'),
  ].join('\n');
}

async function main(): Promise<void> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'weir-flow-alloc-'));
  const binary = weirLoadBinary(REPO);
  const origins = await startOrigins(binary);
  const results: PeerCost[] = [];
  try {
    console.log(`load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    for (const name of PEERS) {
      const cost = await profilePeer(name, { binary, origins }, root);
      results.push(cost);
      console.log(report(cost) + '\n');
    }
    const [relay, weir] = results as [PeerCost, PeerCost];
    const per = (c: PeerCost): number => Math.max(1, c.heapConnections);
    console.log(
      `weir ÷ relay: heap bytes ${fmt(weir.summary.heapBytes / per(weir) / (relay.summary.heapBytes / per(relay)), 2)}×, ` +
        `objects ${fmt(weir.summary.heapObjects / per(weir) / (relay.summary.heapObjects / per(relay)), 2)}×, ` +
        `CPU ${fmt(weir.cpuUsPerConn / relay.cpuUsPerConn, 2)}×; load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`,
    );
    fs.mkdirSync(path.join(REPO, '.bench'), { recursive: true });
    fs.writeFileSync(path.join(REPO, '.bench', 'flow-alloc.json'), JSON.stringify(results, null, 2));
  } finally {
    await origins.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  killAllNow();
  console.error(error);
  process.exit(1);
});
