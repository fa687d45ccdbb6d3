import { parentPort, workerData } from 'node:worker_threads';
import type { ConnectionKeys, ProcessInfo } from './proc-scan.js';
import { ProcResolver } from './proc-resolver.js';

export interface ProcWorkerData {
  procRoot: string;
  uid: number;
  /** Least time between two passes over procfs. */
  minIntervalMs: number;
  /** A request older than this has been given up by the asker: it is dropped unanswered. */
  timeoutMs: number;
}

export interface LookupRequest {
  id: number;
  keys: ConnectionKeys;
  /** When it was asked (ms since the epoch). */
  at: number;
}

export interface LookupAnswer {
  id: number;
  info: ProcessInfo | null;
}

/**
 * The lookup's thread. Requests that arrive while a pass runs, or while it waits,
 * are served by the next pass together. A pass starts no sooner than `minIntervalMs`
 * and than ten times the last pass's duration after the last one began: on a busy
 * machine (tens of thousands of sockets in TIME_WAIT) procfs is slow to read, and the
 * lookup then takes at most a tenth of one core, answering later or not at all
 * instead of slowing the relaying down.
 */
function serve(port: NonNullable<typeof parentPort>, data: ProcWorkerData): void {
  const resolver = new ProcResolver({ procRoot: data.procRoot, uid: data.uid });
  let queue: LookupRequest[] = [];
  let scheduled = false;
  let nextPass = 0;
  const pass = (): void => {
    scheduled = false;
    const started = Date.now();
    const batch = queue.filter((r) => started - r.at < data.timeoutMs);
    queue = [];
    if (batch.length === 0) return;
    const infos = resolver.resolve(batch.map((r) => r.keys), started);
    port.postMessage(batch.map((r, i): LookupAnswer => ({ id: r.id, info: infos[i] ?? null })));
    nextPass = started + Math.max(data.minIntervalMs, 10 * (Date.now() - started));
  };
  port.on('message', (requests: LookupRequest[]) => {
    queue.push(...requests);
    if (scheduled) return;
    scheduled = true;
    setTimeout(pass, Math.max(0, nextPass - Date.now()));
  });
}

if (parentPort) serve(parentPort, workerData as ProcWorkerData);
