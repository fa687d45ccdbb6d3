import type { BusEvent, UdpUpstreamStats } from '../../streams/contract.js';
import type { FlowChange } from '../../streams/flow-change.js';
import type { WorkerEvent, WorkerMessage } from './worker-messages.js';

/**
 * Changes in one message at most; a busy worker sends a full batch at once rather than
 * grow one message without bound.
 */
const MAX_BATCH = 256;

/**
 * Gathers a worker's flow changes and events and sends them to the hub as one message
 * per event-loop turn (or per MAX_BATCH changes): one IPC message and one JSON string
 * per turn instead of one per event.
 */
export class ChangeBatcher {
  private changes: FlowChange[] = [];
  private events: WorkerEvent[] = [];
  private udp: UdpUpstreamStats | undefined;
  private scheduled = false;

  constructor(private readonly send: (message: WorkerMessage, done?: () => void) => void) {}

  change(change: FlowChange): void {
    this.changes.push(change);
    if (this.changes.length >= MAX_BATCH) this.flush();
    else this.schedule();
  }

  event({ event_type, payload, occurred_at_unix_ms, principal_key }: BusEvent): void {
    this.events.push({ event_type, payload, occurred_at_unix_ms, principal_key });
    this.schedule();
  }

  /** The UDP counters as of now, sent with the next batch. */
  counters(udp: UdpUpstreamStats): void {
    this.udp = { ...udp };
    this.schedule();
  }

  /** Sends what is gathered now; `done` once the hub's channel took it. */
  flush(done?: () => void): void {
    const message: WorkerMessage = { t: 'batch', changes: this.changes, events: this.events, ...(this.udp && { udp: this.udp }) };
    this.changes = [];
    this.events = [];
    this.udp = undefined;
    this.send(message, done);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (this.changes.length + this.events.length > 0 || this.udp) this.flush();
    });
  }
}
