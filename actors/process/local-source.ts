import os from 'node:os';
import { plainIp } from '../net/plain-ip.js';

/** How long the list of this machine's addresses is trusted before it is read again. */
const REFRESH_MS = 30_000;

/**
 * Whether a client address belongs to this machine: loopback, or an address of one
 * of its interfaces. Only such clients have a process the node can find in /proc.
 */
export class LocalSource {
  private addresses = new Set<string>();
  private readAt = -Infinity;

  constructor(private readonly now: () => number = Date.now) {}

  has(ip: string): boolean {
    const plain = plainIp(ip);
    if (plain.startsWith('127.') || plain === '::1') return true;
    if (this.now() - this.readAt >= REFRESH_MS) {
      this.addresses = new Set(
        Object.values(os.networkInterfaces())
          .flat()
          .map((i) => plainIp(i?.address ?? '')),
      );
      this.readAt = this.now();
    }
    return this.addresses.has(plain);
  }
}
