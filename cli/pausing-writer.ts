import type { Writable } from 'node:stream';

/**
 * Writes to `out`, pausing `source` while `out` is full. Lines already read keep coming
 * after the pause (a whole chunk is split at once), so the wait for 'drain' is taken
 * once, not once per line: a listener per line piled up by the dozen behind a slow
 * reader of `weir events`.
 */
export class PausingWriter {
  private waiting = false;

  constructor(
    private readonly out: Writable,
    private readonly source: { pause(): unknown; resume(): unknown },
  ) {}

  write(text: string): void {
    if (this.out.write(text) || this.waiting) return;
    this.waiting = true;
    this.source.pause();
    this.out.once('drain', () => {
      this.waiting = false;
      this.source.resume();
    });
  }
}
