import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';

export interface SlowSseFigures {
  readonly connections: number;
  readonly frames: number;
  /** Streams that ended on the SLOW_CONSUMER frame. */
  readonly slowConsumerCuts: number;
  /** Streams that ended on anything but a whole frame (a cut mid-record). */
  readonly cutMidFrame: number;
}

export interface SlowSseReader {
  figures(): SlowSseFigures;
  /** Ends the current stream and the loop; resolves once the loop has stopped. */
  stop(): Promise<void>;
}

/**
 * An SSE subscriber of every event that reads for `readMs`, then stops reading for
 * `pauseMs` (the socket's buffers fill and the node's bound is reached), then reads on,
 * over and over; when its stream ends it connects again after a second. A node that is
 * down between a kill and its restart is tried again the same way.
 */
export function startSlowSseReader(streamUrl: string, apiKey: string, readMs: number, pauseMs: number, say: (line: string) => void): SlowSseReader {
  const f = { connections: 0, frames: 0, slowConsumerCuts: 0, cutMidFrame: 0 };
  let stopped = false;
  let current: http.ClientRequest | null = null;

  const oneStream = (): Promise<void> =>
    new Promise((resolve) => {
      let tail = '';
      let read = 0;
      let slow = false;
      let ended = false;
      let timer: NodeJS.Timeout | undefined;
      const req = http.get(streamUrl, { headers: { authorization: `Bearer ${apiKey}` } }, (res) => {
        f.connections += 1;
        const cycle = (): void => {
          timer = setTimeout(() => {
            res.pause();
            timer = setTimeout(() => {
              res.resume();
              cycle();
            }, pauseMs);
          }, readMs);
        };
        cycle();
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const frames = (tail + chunk).split('\n\n');
          tail = frames.pop() ?? '';
          f.frames += frames.length;
          read += frames.length;
          if (frames.some((frame) => frame.includes('"code":"SLOW_CONSUMER"'))) slow = true;
        });
        // 'end' and 'close' both come at the end of a stream: it is counted once.
        const done = (): void => {
          if (ended) return;
          ended = true;
          clearTimeout(timer);
          if (stopped) return resolve();
          if (slow) f.slowConsumerCuts += 1;
          if (tail !== '') f.cutMidFrame += 1;
          say(`SSE stream ended after ${read} frames: ${slow ? 'SLOW_CONSUMER' : 'no closing frame'}${tail === '' ? '' : `, mid-frame (${tail.length} bytes of it)`}`);
          resolve();
        };
        res.once('end', done).once('close', done).once('error', done);
      });
      current = req;
      req.once('error', () => {
        clearTimeout(timer);
        resolve();
      });
    });

  const loop = (async () => {
    while (!stopped) {
      await oneStream();
      if (!stopped) await sleep(1000);
    }
  })();
  return {
    figures: () => ({ ...f }),
    stop: async () => {
      stopped = true;
      current?.destroy();
      await loop;
    },
  };
}
