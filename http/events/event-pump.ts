import { asyncScheduler, interval, Subscription, type Observable, type SchedulerLike } from 'rxjs';
import type { PublishedEvent } from '../../streams/published-event.js';
import { coalesce } from '../../streams/coalesce.js';
import type { Encoder } from './encoders.js';
import type { SubscriberLimits } from './stream-limits.js';

/** What the pump needs from one subscriber's connection (an SSE response or a WebSocket). */
export interface StreamTransport {
  /** Writes frames in one go; false when the socket wants `drain` before more. */
  write(frames: string[]): boolean;
  onDrain(listener: () => void): void;
  heartbeat(): void;
  /** Ends the stream of a subscriber that fell behind; it resumes after `resumeFrom`, `dropped` events were never sent. */
  cutOff(resumeFrom: number, dropped: number): void;
  /** Ends the stream because the node's event stream ended. */
  end(): void;
}

/** Largest single write, in characters; a tick's batch is normally far below it. */
const MAX_WRITE_CHARS = 256 * 1024;

/**
 * Feeds one subscriber: events gathered per tick, written once per tick, held in a
 * queue while the socket is full. When the queue outgrows `limits.bufferBytes` the
 * subscriber is cut off with the last sequence it was sent, so node memory stays
 * bounded whatever the client does. The first batch (replay and snapshot) does not
 * count against the bound: a client resuming from far back is not a slow one.
 */
export function pumpEvents(
  events$: Observable<PublishedEvent>,
  encode: Encoder,
  transport: StreamTransport,
  limits: SubscriberLimits,
  scheduler: SchedulerLike = asyncScheduler,
): Subscription {
  const queue: { frame: string; sequence: number }[] = [];
  let head = 0;
  let queuedChars = 0;
  let exemptChars = 0;
  // Set by the first write, which always comes before a cut (the first batch is exempt).
  let lastSent = 0;
  let waitingDrain = false;
  let first = true;
  const sub = new Subscription();

  const flush = (): void => {
    while (!waitingDrain && head < queue.length) {
      const frames: string[] = [];
      let chars = 0;
      while (head < queue.length && chars < MAX_WRITE_CHARS) {
        const { frame, sequence } = queue[head++]!;
        frames.push(frame);
        chars += frame.length;
        lastSent = sequence;
      }
      queuedChars -= chars;
      exemptChars = Math.max(0, exemptChars - chars);
      if (!transport.write(frames)) {
        waitingDrain = true;
        transport.onDrain(() => {
          waitingDrain = false;
          flush();
        });
      }
    }
    // Drop the written prefix now and then, so a steady but slow reader keeps a short array.
    if (head === queue.length || head * 2 > queue.length) {
      queue.splice(0, head);
      head = 0;
    }
  };

  const enqueue = (batch: PublishedEvent[]): void => {
    let chars = 0;
    for (const e of batch) {
      const frame = encode(e);
      queue.push({ frame, sequence: e.sequence });
      chars += frame.length;
    }
    queuedChars += chars;
    if (first) exemptChars += chars;
    first = false;
    flush();
    if (queuedChars - exemptChars > limits.bufferBytes) {
      sub.unsubscribe();
      const dropped = queue.length - head;
      queue.length = 0;
      transport.cutOff(lastSent, dropped);
    }
  };

  sub.add(
    events$.pipe(coalesce(limits.tickMs, scheduler)).subscribe({
      next: enqueue,
      // The node is stopping: whatever is queued still goes out, then the stream ends. The
      // heartbeat stops first: a write after the end would be an error on the response.
      complete: () => {
        sub.unsubscribe();
        if (head < queue.length) transport.write(queue.slice(head).map((q) => q.frame));
        transport.end();
      },
      error: () => {
        sub.unsubscribe();
        transport.end();
      },
    }),
  );
  sub.add(
    interval(limits.heartbeatMs, scheduler).subscribe(() => {
      if (!waitingDrain) transport.heartbeat();
    }),
  );
  return sub;
}
