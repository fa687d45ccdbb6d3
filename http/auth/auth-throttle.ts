import type { Logger } from 'pino';
import { FullWarning } from '../../actors/base/full-warning.js';

export interface AuthThrottleOptions {
  /** Wrong keys from one address within `windowMs` after which it is refused. @defaultValue 10 */
  maxFailures: number;
  /** Ms after an address's last wrong key that its episode ends (and its refusals). @defaultValue 60 s */
  windowMs: number;
  /** Addresses tracked at once; past it the one that failed longest ago is forgotten. @defaultValue 4096 */
  maxAddresses: number;
}

export const DEFAULT_AUTH_THROTTLE: AuthThrottleOptions = { maxFailures: 10, windowMs: 60_000, maxAddresses: 4096 };

/** One address's run of wrong keys: from its first to `windowMs` after its last. */
interface Episode {
  startedAt: number;
  lastFailureAt: number;
  failures: number;
  /** Requests refused (429) while throttled. */
  refused: number;
}

/**
 * Slows key guessing: an address that sent `maxFailures` wrong keys within the window
 * is refused, whatever it sends, until `windowMs` after its last wrong key. Each
 * episode is logged twice, at its first wrong key and when it ends with what it
 * counted, never once per attempt. The table is bounded; it is kept in order of last
 * failure, so ending episodes and forgetting the oldest look at its head only.
 */
export class AuthThrottle {
  private readonly episodes = new Map<string, Episode>();
  private readonly full: FullWarning;

  constructor(
    private readonly log: Logger,
    private readonly opts: AuthThrottleOptions,
    private readonly now: () => number,
  ) {
    this.full = new FullWarning(log, opts.maxAddresses, 'control authentication failures from too many addresses: forgetting the oldest');
  }

  /** Seconds `remote` must wait before its key is looked at again; null when it may send one now. */
  retryAfterS(remote: string): number | null {
    const episode = this.current(remote);
    if (episode === undefined || episode.failures < this.opts.maxFailures) return null;
    episode.refused++;
    return Math.max(1, Math.ceil((episode.lastFailureAt + this.opts.windowMs - this.now()) / 1000));
  }

  /** Counts a wrong key from `remote`; the first of an episode is logged. */
  failed(remote: string): void {
    const now = this.now();
    let episode = this.current(remote);
    if (episode === undefined) {
      this.makeRoom();
      episode = { startedAt: now, lastFailureAt: now, failures: 0, refused: 0 };
      this.log.warn({ remote, max_failures: this.opts.maxFailures, window_ms: this.opts.windowMs }, 'control authentication failed: a wrong key');
    }
    episode.failures++;
    episode.lastFailureAt = now;
    // Re-inserted: the map stays in order of last failure.
    this.episodes.delete(remote);
    this.episodes.set(remote, episode);
  }

  /** Ends the episodes whose window has passed, each with its summary line. */
  sweep(): void {
    const now = this.now();
    for (const [remote, episode] of this.episodes) {
      if (now - episode.lastFailureAt < this.opts.windowMs) break;
      this.end(remote, episode);
    }
  }

  /** Addresses with an episode now. */
  get size(): number {
    return this.episodes.size;
  }

  private current(remote: string): Episode | undefined {
    const episode = this.episodes.get(remote);
    if (episode !== undefined && this.now() - episode.lastFailureAt >= this.opts.windowMs) {
      this.end(remote, episode);
      return undefined;
    }
    return episode;
  }

  private makeRoom(): void {
    this.sweep();
    if (this.episodes.size < this.opts.maxAddresses) return this.full.admitted();
    this.full.refused();
    const oldest = this.episodes.keys().next();
    if (!oldest.done) this.episodes.delete(oldest.value);
  }

  private end(remote: string, episode: Episode): void {
    this.episodes.delete(remote);
    this.log.warn(
      {
        remote,
        failures: episode.failures,
        refused: episode.refused,
        throttled: episode.failures >= this.opts.maxFailures,
        duration_ms: episode.lastFailureAt - episode.startedAt,
      },
      'control authentication failures ended',
    );
  }
}
