import type { Inbound } from '../contracts/inbound.js';

/**
 * An inbound as the hub shows it: its workers listen on it, the hub knows its address
 * from the workers. node:cluster keys the one listening socket by the config's address
 * and port, so every worker gets the same one, port 0 included, while any holds it.
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

  /** Told by the pool when a worker reports its listeners: a port 0 changes only if every worker had exited. */
  listening(address: { host: string; port: number }): void {
    this.bound = address;
  }

  address(): { host: string; port: number } | null {
    return this.bound;
  }
}
