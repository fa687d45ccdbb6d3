import fs from 'node:fs';
import path from 'node:path';
import type { FlowSource } from '../../streams/contract.js';
import { scanProcLines, type ProcSocket } from './proc-net.js';

/** What the node tells about the local process behind a flow's source. */
export type ProcessInfo = Required<Pick<FlowSource, 'process_id'>> & Pick<FlowSource, 'process_name' | 'process_path'>;

/** A connection to look up: its keys in /proc/net/tcp (`v4`) and tcp6 (`v6`). */
export interface ConnectionKeys {
  v4?: string;
  v6: string;
}

// Synchronous on purpose: these run on the lookup's worker thread, never on the
// node's event loop, where procfs reads of a busy machine would stall relaying.

/** The sockets of a batch of connections, from tcp and (for what tcp lacks) tcp6. */
export function socketsOf(procRoot: string, batch: readonly ConnectionKeys[]): (ProcSocket | null)[] {
  const found4 = find(procRoot, 'tcp', new Set(batch.flatMap((k) => (k.v4 ? [k.v4] : []))));
  // IPv6 clients, and IPv4 ones on dual-stack sockets, are in tcp6.
  const rest = batch.filter((k) => !(k.v4 && found4.has(k.v4)));
  const found6 = find(procRoot, 'tcp6', new Set(rest.map((k) => k.v6)));
  return batch.map((k) => (k.v4 ? found4.get(k.v4) : undefined) ?? found6.get(k.v6) ?? null);
}

/** procfs files report size 0: they are read in pieces this large. */
const CHUNK = 1 << 18;

/** Reads a table until every wanted socket is found: on average half of a large one. */
function find(procRoot: string, table: 'tcp' | 'tcp6', wanted: ReadonlySet<string>): Map<string, ProcSocket> {
  const found = new Map<string, ProcSocket>();
  if (wanted.size === 0) return found;
  let fd: number;
  try {
    fd = fs.openSync(path.join(procRoot, 'net', table), 'r');
  } catch {
    // A kernel without IPv6 has no tcp6; without procfs there is nothing.
    return found;
  }
  try {
    const buf = Buffer.allocUnsafe(CHUNK);
    let rest = '';
    for (;;) {
      const n = fs.readSync(fd, buf, 0, CHUNK, null);
      if (n === 0) break;
      const text = rest + buf.toString('latin1', 0, n);
      const whole = text.lastIndexOf('\n') + 1;
      scanProcLines(text.slice(0, whole), wanted, found);
      rest = text.slice(whole);
      if (found.size === wanted.size) break;
    }
  } catch {
    // A read error ends the search with what was found.
  } finally {
    fs.closeSync(fd);
  }
  return found;
}

/**
 * The processes holding the given socket inodes, from the `socket:[inode]` links in
 * /proc/[pid]/fd: the `first` pids, then the others newest first (a client that has
 * just connected is most often a process that has just started), stopping once every
 * inode is found. Processes that are gone or not ours to read are skipped.
 */
export function ownersOf(procRoot: string, inodes: ReadonlySet<number>, first: readonly number[]): Map<number, number> {
  const owners = new Map<number, number>();
  const others = listPids(procRoot)
    .filter((pid) => !first.includes(pid))
    .sort((a, b) => b - a);
  for (const pid of [...first, ...others]) {
    if (owners.size === inodes.size) break;
    for (const inode of socketInodes(procRoot, pid)) if (inodes.has(inode)) owners.set(inode, pid);
  }
  return owners;
}

function listPids(procRoot: string): number[] {
  try {
    return fs.readdirSync(procRoot).filter((n) => /^\d+$/.test(n)).map(Number);
  } catch {
    return [];
  }
}

function socketInodes(procRoot: string, pid: number): number[] {
  const dir = path.join(procRoot, String(pid), 'fd');
  const inodes: number[] = [];
  let fds: string[] = [];
  try {
    fds = fs.readdirSync(dir);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    const m = /^socket:\[(\d+)\]$/.exec(readlink(path.join(dir, fd)));
    if (m) inodes.push(Number(m[1]));
  }
  return inodes;
}

/**
 * Name (/proc/[pid]/comm) and executable (/proc/[pid]/exe) of a process; each is
 * left out when it cannot be read (another user's process, a process that is gone).
 */
export function processInfo(procRoot: string, pid: number): ProcessInfo {
  const info: ProcessInfo = { process_id: pid };
  let comm = '';
  try {
    comm = fs.readFileSync(path.join(procRoot, String(pid), 'comm'), 'utf8').trim();
  } catch {
    // Gone, or not ours to read.
  }
  if (comm) info.process_name = comm;
  // The kernel marks an executable replaced or removed since the start.
  const exe = readlink(path.join(procRoot, String(pid), 'exe')).replace(/ \(deleted\)$/, '');
  if (exe) info.process_path = exe;
  return info;
}

function readlink(file: string): string {
  try {
    return fs.readlinkSync(file);
  } catch {
    return '';
  }
}
