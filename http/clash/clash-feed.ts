import type { Observable, Subscription } from 'rxjs';

/** Where one Clash stream's messages go: a WebSocket or a chunked HTTP response. */
export interface ClashOutlet {
  send(text: string): void;
  /** True while the socket holds more than it should: the message is skipped, not queued. */
  behind(): boolean;
  /** Told of each skipped message. */
  skipped(): void;
  /** The node is stopping: the stream ends. */
  end(): void;
}

/** Bytes a Clash stream's socket may hold unsent before messages are skipped. */
export const CLASH_BEHIND_BYTES = 1024 * 1024;

/**
 * Sends each message unless the client is behind. Every message stands alone (a whole
 * snapshot, a tick's rate, a log line), so a slow client skips some and the node holds
 * at most one socket buffer for it, never a queue.
 */
export function feedClash(messages$: Observable<string>, outlet: ClashOutlet): Subscription {
  return messages$.subscribe({
    next: (text) => {
      if (outlet.behind()) outlet.skipped();
      else outlet.send(text);
    },
    complete: () => outlet.end(),
    error: () => outlet.end(),
  });
}
