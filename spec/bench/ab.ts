// Interleaved A/B of builds on the short-connection load, for work on the connection rate:
//   node dist/spec/bench/ab.js [--pairs N] SIDE...
// A SIDE is `raw` (the raw Node SOCKS5 relay) or a checkout holding a built dist/ (`name=dir` to
// label it). Every side runs at once, each gets the rate load for 4 s unmeasured, then
// each pair measures every side for 2 s back to back, in an order reversed from one pair
// to the next, so a slow spell of the shared machine weighs on all of them. The
// medians and the median of per-pair ratios to the first side are printed. The native
// load client and origin of `make bench` drive them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { killAllNow } from './children.js';
import { targetOf } from './measure.js';
import { weirLoadBinary } from './native-build.js';
import { startOrigins } from './origins.js';
import { BASELINE, median } from './report.js';
import { peers, startPeer, weirPeer, type RunningPeer } from './peers.js';
import { quiet, rateRun, type Load } from './proxy-steps.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const WORKERS = 50;
const WARMUP_MS = 4000;
const WINDOW_MS = 2000;

interface Side {
  readonly label: string;
  readonly peer: RunningPeer;
  readonly rate: number[];
  readonly cpuUs: number[];
}

function sideOf(arg: string): { label: string; root: string } {
  const at = arg.indexOf('=');
  return at < 0 ? { label: path.basename(path.resolve(arg)), root: arg } : { label: arg.slice(0, at), root: arg.slice(at + 1) };
}

const pairedRatio = (values: number[], base: number[]): number => median(values.map((v, i) => v / (base[i] as number)));

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ options: { pairs: { type: 'string', default: '8' } }, allowPositionals: true });
  const pairs = Number(values.pairs);
  if (positionals.length === 0 || !Number.isInteger(pairs) || pairs < 1) {
    console.error('usage: ab.js [--pairs N] SIDE... (SIDE: raw, a checkout with dist/, or name=checkout)');
    process.exit(2);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weir-ab-'));
  const binary = weirLoadBinary(REPO);
  const load: Load = { binary, origins: await startOrigins(binary) };
  const sides: Side[] = [];
  try {
    for (const arg of positionals) {
      const { label, root } = arg === 'raw' ? { label: 'raw', root: REPO } : sideOf(arg);
      const peer = arg === 'raw' ? peers(REPO).find((p) => p.name === BASELINE) : weirPeer(path.resolve(root));
      if (!peer || peer.missing) throw new Error(`${label}: ${peer?.missing ?? 'no such peer'}`);
      sides.push({ label, peer: await startPeer(peer, dir, load.origins, 10_000), rate: [], cpuUs: [] });
    }
    const target = (s: Side) => targetOf(s.peer);
    for (const s of sides) await rateRun(target(s), load, WORKERS, WARMUP_MS);
    for (let pair = 0; pair < pairs; pair++) {
      for (const s of pair % 2 === 0 ? sides : [...sides].reverse()) {
        await quiet(target(s));
        const r = await rateRun(target(s), load, WORKERS, WINDOW_MS);
        s.rate.push(r.perSecond);
        s.cpuUs.push(r.cpuUs);
      }
    }
    const base = sides[0] as Side;
    console.log(`${pairs} pairs of ${WINDOW_MS / 1000} s windows, ${WORKERS} concurrent; paired ratios against ${base.label}`);
    for (const s of sides) {
      console.log(
        `${s.label.padEnd(12)} rate ${median(s.rate).toFixed(0).padStart(5)} conn/s  CPU ${median(s.cpuUs).toFixed(0).padStart(4)} µs/conn` +
          `  paired: rate ${pairedRatio(s.rate, base.rate).toFixed(3)}×  CPU ${pairedRatio(s.cpuUs, base.cpuUs).toFixed(3)}×`,
      );
    }
  } finally {
    for (const s of sides) await s.peer.stop();
    await load.origins.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  killAllNow();
  process.exit(1);
});
