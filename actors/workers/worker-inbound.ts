import type { Inbound } from '../contracts/inbound.js';

/**
 * An inbound as the hub shows it: its workers listen on it (node:cluster shares the
 * socket), the hub knows its address from the first worker that listened.
 */
export class WorkerInbound implements Inbound {
  private bound: { host: string; port: number } | null = null;

  constructor(
    readonly tag: string,
    readonly protocol: string,
  ) {}

  /** The pool starts and stops the workers; an inbound alone has nothing to open. */
  start(): Promise<void> {
    return Promise.resolve();
  }

  stop(): Promise<void> {
    return Promise.resolve();
  }

  /** Told by the pool when a worker reports its listeners. */
  listening(address: { host: string; port: number }): void {
    this.bound ??= address;
  }

  address(): { host: string; port: number } | null {
    return this.bound;
  }
}
