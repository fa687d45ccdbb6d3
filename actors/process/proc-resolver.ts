import { ownersOf, processInfo, socketsOf, type ConnectionKeys, type ProcessInfo } from './proc-scan.js';

/** Pids looked at first: a client making many connections is found at once. */
const RECENT_PIDS = 4;
/** How long a pid's name and path are reused for its next connections. */
const INFO_TTL_MS = 5000;

export interface ResolverOptions {
  procRoot: string;
  /** The node's uid: only root may look into other users' processes. */
  uid: number;
}

/**
 * Turns a batch of connections into the processes behind them: sockets from
 * /proc/net, their owners from /proc/[pid]/fd, then name and executable. One pass
 * over procfs serves the whole batch. It remembers the last owners (tried first next
 * time) and their names for a few seconds.
 */
export class ProcResolver {
  private readonly recent: number[] = [];
  private readonly infos = new Map<number, { info: ProcessInfo; at: number }>();

  constructor(private readonly opts: ResolverOptions) {}

  resolve(batch: readonly ConnectionKeys[], now: number): (ProcessInfo | null)[] {
    const sockets = socketsOf(this.opts.procRoot, batch).map((s) =>
      // Another user's socket: only root may read that process's fds.
      s && (this.opts.uid === 0 || s.uid === this.opts.uid) ? s : null,
    );
    const inodes = new Set(sockets.flatMap((s) => (s ? [s.inode] : [])));
    const owners = inodes.size > 0 ? ownersOf(this.opts.procRoot, inodes, this.recent) : new Map<number, number>();
    for (const pid of new Set(owners.values())) this.remember(pid);
    this.forgetOld(now);
    return sockets.map((s) => {
      const pid = s ? owners.get(s.inode) : undefined;
      return pid === undefined ? null : this.infoOf(pid, now);
    });
  }

  private infoOf(pid: number, now: number): ProcessInfo {
    const cached = this.infos.get(pid);
    if (cached) return cached.info;
    const info = processInfo(this.opts.procRoot, pid);
    this.infos.set(pid, { info, at: now });
    return info;
  }

  private forgetOld(now: number): void {
    for (const [pid, c] of this.infos) if (now - c.at >= INFO_TTL_MS) this.infos.delete(pid);
  }

  private remember(pid: number): void {
    const at = this.recent.indexOf(pid);
    if (at >= 0) this.recent.splice(at, 1);
    this.recent.unshift(pid);
    this.recent.length = Math.min(this.recent.length, RECENT_PIDS);
  }
}
