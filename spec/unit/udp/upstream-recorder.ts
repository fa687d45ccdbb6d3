import type { UdpUpstreamEvents } from '../../../actors/udp/udp-upstream.js';
import { waitFor } from '../../support/wait-for.js';

export interface RecordedReply {
  /** The framed datagram as one buffer. */
  framed: Buffer;
  payloadBytes: number;
  wireBytes: number;
}

/** Upstream events, recorded for a spec to assert on. */
export class UpstreamRecorder implements UdpUpstreamEvents {
  readonly replies: RecordedReply[] = [];
  readonly sends: { payloadBytes: number; wireBytes: number }[] = [];
  readonly sendFailures: Error[] = [];
  recvFailures = 0;
  readonly breaks: Error[] = [];

  reply(framed: Buffer | readonly Buffer[], payloadBytes: number, wireBytes: number): void {
    this.replies.push({ framed: Buffer.isBuffer(framed) ? Buffer.from(framed) : Buffer.concat(framed), payloadBytes, wireBytes });
  }

  sent(payloadBytes: number, wireBytes: number): void {
    this.sends.push({ payloadBytes, wireBytes });
  }

  sendFailed(err: Error): void {
    this.sendFailures.push(err);
  }

  recvFailed(): void {
    this.recvFailures++;
  }

  broken(err: Error): void {
    this.breaks.push(err);
  }

  /** Waits for the `n`th reply (1-based). */
  nthReply(n: number): Promise<RecordedReply> {
    return waitFor(() => this.replies[n - 1], 3000, `reply #${n}`);
  }
}
