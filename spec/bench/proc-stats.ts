import fs from 'node:fs';

/** Resident set size of one process in KiB, from VmRSS in /proc/<pid>/status; 0 if it is gone. */
export function rssKiB(pid: number): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** Fields of /proc/<pid>/stat from the third on (state, ppid, ...), or null if the process is gone. */
function statFields(pid: number): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm may hold spaces and parentheses; the fields after the last ')' are fixed.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

function parentOf(pid: number): number | null {
  const fields = statFields(pid);
  return fields ? Number(fields[1]) : null;
}

/** PIDs of root and all its descendants. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    const parent = parentOf(pid);
    if (parent === null) continue;
    children.set(parent, [...(children.get(parent) ?? []), pid]);
  }
  const tree: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    tree.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/**
 * RSS of a process and its descendants, in KiB. Dante serves connections from forked
 * children, so its cost per connection is only visible over the whole tree.
 */
export function treeRssKiB(root: number): number {
  return processTree(root).reduce((sum, pid) => sum + rssKiB(pid), 0);
}

/**
 * CPU time (user + system, in clock ticks) used so far by a process and its descendants.
 * A child that exited and was waited for leaves the tree, and its time moves to its
 * parent's cutime/cstime: counted there, the sum never falls when Dante ends a child.
 */
export function treeCpuTicks(root: number): number {
  return processTree(root).reduce((sum, pid) => {
    const fields = statFields(pid);
    // utime, stime, cutime and cstime are fields 14 to 17 of stat, 11 to 14 here.
    return fields ? sum + Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]) : sum;
  }, 0);
}

/** One thread's name (comm) and its CPU time so far (user + system, in clock ticks). */
export interface ThreadTicks {
  readonly name: string;
  readonly ticks: number;
}

/** Every thread of a process and its descendants, by thread id; a thread that is gone is left out. */
export function treeThreadTicks(root: number): Map<number, ThreadTicks> {
  const threads = new Map<number, ThreadTicks>();
  for (const pid of processTree(root)) {
    let tids: string[];
    try {
      tids = fs.readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      try {
        const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        threads.set(Number(tid), { name, ticks: Number(fields[11]) + Number(fields[12]) });
      } catch {
        // The thread ended between the listing and the read.
      }
    }
  }
  return threads;
}

/** How a run's CPU fell on the proxy's threads: its first (main) thread, and the others together. */
export interface ThreadShare {
  /** Cores the main thread used over the run (ticks / TICKS / seconds). */
  readonly main: number;
  /** Cores all other threads used together. */
  readonly others: number;
  /** The busiest other thread, by name, or null when none used any CPU. */
  readonly busiest: { name: string; cores: number } | null;
}

/**
 * The share of each thread between two treeThreadTicks readings of `root` over
 * `seconds`. A thread born during the run counts from zero; one that ended is missing
 * from the second reading and is left out (its time is not in any thread's stat).
 */
export function threadShare(root: number, before: Map<number, ThreadTicks>, after: Map<number, ThreadTicks>, seconds: number, ticksPerSecond: number): ThreadShare {
  const cores = (ticks: number): number => ticks / ticksPerSecond / seconds;
  let main = 0;
  let others = 0;
  let busiest: ThreadShare['busiest'] = null;
  for (const [tid, now] of after) {
    const used = cores(now.ticks - (before.get(tid)?.ticks ?? 0));
    if (tid === root) main = used;
    else {
      others += used;
      if (used > 0 && (!busiest || used > busiest.cores)) busiest = { name: now.name, cores: used };
    }
  }
  return { main, others, busiest };
}
