import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Socket } from 'node:net';

/** A procfs look-alike in a temp dir: net/tcp{,6} and /proc/[pid]/{fd,comm,exe}. */
export class FakeProc {
  readonly root = fs.mkdtempSync(path.join(os.tmpdir(), 'weir-proc-'));

  constructor() {
    fs.mkdirSync(path.join(this.root, 'net'));
    this.table('tcp', []);
    this.table('tcp6', []);
  }

  /** Writes a table with one line per `[local, remote, uid, inode]`. */
  table(name: 'tcp' | 'tcp6', rows: readonly [string, string, number, number][]): void {
    const header = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n';
    const lines = rows.map(([l, r, uid, inode], i) => `   ${i}: ${l} ${r} 01 00000000:00000000 00:00000000 00000000 ${uid} 0 ${inode} 1 0 20 4 30 10 -1\n`);
    fs.writeFileSync(path.join(this.root, 'net', name), header + lines.join(''));
  }

  /** A process holding the given socket inodes (fd 3, 4, ...) beside a plain file on fd 0. */
  process(pid: number, opts: { comm?: string; exe?: string; sockets: readonly number[] }): void {
    const dir = path.join(this.root, String(pid));
    fs.mkdirSync(path.join(dir, 'fd'), { recursive: true });
    fs.symlinkSync('/dev/null', path.join(dir, 'fd', '0'));
    opts.sockets.forEach((inode, i) => fs.symlinkSync(`socket:[${inode}]`, path.join(dir, 'fd', String(i + 3))));
    if (opts.comm !== undefined) fs.writeFileSync(path.join(dir, 'comm'), `${opts.comm}\n`);
    if (opts.exe !== undefined) fs.symlinkSync(opts.exe, path.join(dir, 'exe'));
  }

  remove(): void {
    fs.rmSync(this.root, { recursive: true, force: true });
  }
}

/** The address fields of an accepted socket, which is all the lookup reads. */
export function acceptedFrom(client: { ip: string; port: number }, local: { ip: string; port: number }): Socket {
  return { remoteAddress: client.ip, remotePort: client.port, localAddress: local.ip, localPort: local.port } as Socket;
}
