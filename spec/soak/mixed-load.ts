import { setTimeout as sleep } from 'node:timers/promises';
import type { LoadJob } from '../bench/load-job.js';
import { runLoad } from '../bench/load-runner.js';

export interface MixedTargets {
  readonly socksPort: number;
  readonly httpPort: number;
  /** `user:password` of the SOCKS5 inbound. */
  readonly account: string;
  /** The origin's port that echoes 16 bytes and closes. */
  readonly echoOncePort: number;
  /** A loopback port nothing listens on: every flow to it fails. */
  readonly closedPort: number;
}

export interface LoadTotals {
  /** Short connections that echoed through the proxy, by inbound. */
  socks: number;
  http: number;
  /** Connections that failed: those to the closed port, and those a kill or restart caught. */
  failed: number;
  /** Runs of the client that gave no result (the node was down when it started, say). */
  clientErrors: number;
}

/**
 * Load in bursts until `untilMs` (ms since the epoch): each cycle runs, for `burstMs`
 * at once, the native client through the authenticated SOCKS5 inbound and through HTTP
 * CONNECT to the echo origin, and one through SOCKS5 to the closed port for a quarter
 * of it, then rests for `restMs`. The rests keep the archive's size in bounds on a
 * long soak while each burst still runs the node at full speed.
 */
export async function mixedLoad(binary: string, t: MixedTargets, untilMs: number, burstMs: number, restMs: number, totals: LoadTotals): Promise<void> {
  const echo = { host: '127.0.0.1', port: t.echoOncePort };
  const jobs: Extract<LoadJob, { kind: 'rate' }>[] = [
    { kind: 'rate', port: t.socksPort, proto: 'socks5', auth: t.account, target: echo, concurrency: 2, ms: burstMs },
    { kind: 'rate', port: t.httpPort, proto: 'http', target: echo, concurrency: 1, ms: burstMs },
    { kind: 'rate', port: t.socksPort, proto: 'socks5', auth: t.account, target: { host: '127.0.0.1', port: t.closedPort }, concurrency: 1, ms: Math.ceil(burstMs / 4) },
  ];
  while (Date.now() + burstMs < untilMs) {
    const results = await Promise.allSettled(jobs.map((job) => runLoad(binary, job, burstMs + 30_000)));
    results.forEach((r, i) => {
      if (r.status === 'rejected') {
        totals.clientErrors += 1;
        return;
      }
      totals.failed += r.value.failed;
      if (i === 0) totals.socks += r.value.completed;
      if (i === 1) totals.http += r.value.completed;
      if (i === 2) totals.failed += r.value.completed;
    });
    await sleep(Math.min(restMs, Math.max(0, untilMs - Date.now())));
  }
}
