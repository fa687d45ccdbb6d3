import type { Socket } from 'node:net';
import type { Logger } from 'pino';
import { FullWarning } from '../base/full-warning.js';

/**
 * Descriptors the proxy inbounds leave to the rest of the node: the control plane's 384
 * connections, IPC's 256, and 128 for files, Redis, DNS and probes.
 */
export const RESERVED_DESCRIPTORS = 768;
/** The fewest connections the inbounds take together, however low the descriptor limit. */
export const MIN_INBOUND_CONNECTIONS = 64;

/**
 * How many client connections the inbounds hold together under `openFiles` descriptors:
 * a relayed connection takes two (client and remote), and the reserve stays free, so a
 * node out of descriptors still answers its operator. No limit when it is unknown.
 */
export function inboundConnectionLimit(openFiles: number | null): number {
  if (openFiles === null) return Infinity;
  return Math.max(MIN_INBOUND_CONNECTIONS, Math.floor((openFiles - RESERVED_DESCRIPTORS) / 2));
}

/**
 * The client connections every inbound holds, counted together up to `limit`: one over
 * it is closed at once, and the log says so once each time the budget fills.
 */
export class ConnectionBudget {
  private open = 0;
  private readonly full: FullWarning;

  constructor(
    readonly limit: number,
    log: Logger,
  ) {
    this.full = new FullWarning(log, limit, 'proxy connections full: new ones are closed until some end, keeping descriptors for the control plane');
  }

  /** Counts `socket` until it closes, or refuses it (false) when the budget is full. */
  admit(socket: Socket): boolean {
    if (this.open >= this.limit) {
      this.full.refused();
      return false;
    }
    this.full.admitted();
    this.open += 1;
    socket.once('close', () => (this.open -= 1));
    return true;
  }
}
