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
