import type { Socket } from 'node:net';
import { Worker } from 'node:worker_threads';
import { LocalSource } from './local-source.js';
import { connectionKeys } from './proc-net.js';
import type { ProcessInfo } from './proc-scan.js';
import type { LookupAnswer, LookupRequest, ProcWorkerData } from './proc-worker.js';

export type { ProcessInfo } from './proc-scan.js';

export interface ProcessLookupOptions {
  /** Root of procfs; specs point it at a fake tree. @defaultValue '/proc' */
  procRoot?: string;
  /** A lookup that takes longer than this gives up with no answer. @defaultValue 2000 */
  timeoutMs?: number;
  /** Least time between two passes over procfs. @defaultValue 100 */
  minIntervalMs?: number;
  /** Our own uid; only root may look into other users' processes. @defaultValue process.getuid() */
  uid?: number;
}

/**
 * Finds the local process behind a client connection on Linux: the connection's
 * socket inode from /proc/net/tcp{,6}, the process holding it from /proc/[pid]/fd,
 * then its name and executable. All procfs work runs on a worker thread, batched and
 * paced (see proc-worker.ts), so relaying never waits for it. It never fails: it
 * answers null when the client is not on this machine, when procfs is not there,
 * when the process is not ours to look into, when the client was gone before it was
 * found, or after `timeoutMs`. One lookup per client socket (a keep-alive HTTP
 * client asks once).
 */
export class ProcessLookup {
  private readonly bySocket = new WeakMap<Socket, Promise<ProcessInfo | null>>();
  private readonly local = new LocalSource();
  private readonly pending = new Map<number, (info: ProcessInfo | null) => void>();
  private worker: Worker | null = null;
  /** Requests of the current turn of the event loop, posted together: one message, not one each. */
  private outbox: LookupRequest[] = [];
  private broken = false;
  private nextId = 1;

  constructor(private readonly opts: ProcessLookupOptions = {}) {}

  private get timeoutMs(): number {
    return this.opts.timeoutMs ?? 2000;
  }

  lookup(client: Socket): Promise<ProcessInfo | null> {
    let found = this.bySocket.get(client);
    if (!found) {
      found = this.find(client);
      this.bySocket.set(client, found);
    }
    return found;
  }

  /** Stops the worker thread; open lookups answer null. */
  close(): void {
    this.broken = true;
    void this.worker?.terminate();
    this.worker = null;
    for (const [id, resolve] of this.pending) {
      this.pending.delete(id);
      resolve(null);
    }
  }

  private find(client: Socket): Promise<ProcessInfo | null> {
    const { remoteAddress, remotePort, localAddress, localPort } = client;
    if (this.broken || !remoteAddress || !remotePort || !localAddress || !localPort || !this.local.has(remoteAddress)) {
      return Promise.resolve(null);
    }
    const keys = connectionKeys({ ip: remoteAddress, port: remotePort }, { ip: localAddress, port: localPort });
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.answer({ id, info: null }), this.timeoutMs);
      this.pending.set(id, (info) => {
        clearTimeout(timer);
        resolve(info);
      });
      if (this.outbox.push({ id, keys, at: Date.now() }) === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const requests = this.outbox;
    this.outbox = [];
    if (!this.broken) this.thread().postMessage(requests);
  }

  private answer({ id, info }: LookupAnswer): void {
    const resolve = this.pending.get(id);
    if (!resolve) return;
    this.pending.delete(id);
    resolve(info);
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const data: ProcWorkerData = {
      procRoot: this.opts.procRoot ?? '/proc',
      uid: this.opts.uid ?? process.getuid?.() ?? -1,
      minIntervalMs: this.opts.minIntervalMs ?? 100,
      timeoutMs: this.timeoutMs,
    };
    const worker = new Worker(new URL('./proc-worker.js', import.meta.url), { workerData: data });
    worker.on('message', (answers: LookupAnswer[]) => answers.forEach((a) => this.answer(a)));
    // A broken worker ends the lookups, not the node: they answer null from then on.
    worker.on('error', () => undefined);
    worker.once('exit', () => this.close());
    // The lookup must never keep the node running (after the listeners, which ref it again).
    worker.unref();
    this.worker = worker;
    return worker;
  }
}
