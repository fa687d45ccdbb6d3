import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ProbeSample } from './limits-report.js';

/** What an operator asks the control plane for, on 127.0.0.1:port. */
export interface ProbeTarget {
  readonly port: number;
  readonly path: string;
  readonly apiKey: string;
}

/** A request that goes this long without a byte of its answer counts as failed (a listing that trickles does not). */
const REQUEST_TIMEOUT_MS = 5000;

/** One GET on a fresh connection (no keep-alive, as a curl from a shell), timed to the last byte of a 200. */
function once(t: ProbeTarget): Promise<ProbeSample> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = http.get(
      { host: '127.0.0.1', port: t.port, path: t.path, agent: false, headers: { authorization: `Bearer ${t.apiKey}` }, timeout: REQUEST_TIMEOUT_MS },
      (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => resolve(res.statusCode === 200 ? { ms: performance.now() - started, bytes } : { failed: `status ${res.statusCode}` }));
        res.on('error', (error) => resolve({ failed: error.message }));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer in ${REQUEST_TIMEOUT_MS} ms`)));
    req.on('error', (error: NodeJS.ErrnoException) => resolve({ failed: error.code ?? error.message }));
  });
}

/**
 * Starts a request every everyMs (whether the last one answered or not, as a monitor
 * would) until `until` settles, and returns every sample once all have ended.
 */
export async function probe(t: ProbeTarget, everyMs: number, until: Promise<unknown>): Promise<ProbeSample[]> {
  let over = false;
  void until.then(
    () => (over = true),
    () => (over = true),
  );
  const pending: Promise<ProbeSample>[] = [];
  while (!over) {
    pending.push(once(t));
    await sleep(everyMs);
  }
  return Promise.all(pending);
}
