import ipaddr from 'ipaddr.js';
import { isIPv4 } from 'node:net';
import { plainIp } from '../net/plain-ip.js';

/**
 * How /proc/net/tcp{,6} write an address: each 32-bit word of the address in host
 * (little-endian) byte order as 8 hex digits, then `:` and the port as 4 hex digits.
 */
export function procAddress(ip: string, port: number, family: 4 | 6): string {
  const bytes = (family === 4 ? ipaddr.IPv4 : ipaddr.IPv6).parse(ip).toByteArray();
  let hex = '';
  for (let i = 0; i < bytes.length; i += 4) {
    for (let j = 3; j >= 0; j--) hex += bytes[i + j]!.toString(16).padStart(2, '0');
  }
  return `${hex.toUpperCase()}:${port.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * The keys (`local remote`, as procfs writes them) a connection from `client` to
 * `server` has in tcp (`v4`) and tcp6 (`v6`): an IPv4 client socket is in tcp, and
 * an IPv6 one in tcp6 (an IPv4 peer of a dual-stack socket as ::ffff:a.b.c.d).
 */
export function connectionKeys(client: { ip: string; port: number }, server: { ip: string; port: number }): { v4?: string; v6: string } {
  const [c, s] = [plainIp(client.ip), plainIp(server.ip)];
  if (isIPv4(c) && isIPv4(s)) {
    const [local, remote] = [procAddress(c, client.port, 4), procAddress(s, server.port, 4)];
    // ::ffff:a.b.c.d: three zero-or-ffff words before the IPv4 word, as procfs writes them.
    return { v4: `${local} ${remote}`, v6: `${MAPPED_PREFIX}${local} ${MAPPED_PREFIX}${remote}` };
  }
  return { v6: `${procAddress(c, client.port, 6)} ${procAddress(s, server.port, 6)}` };
}

const MAPPED_PREFIX = '0000000000000000FFFF0000';

export interface ProcSocket {
  inode: number;
  uid: number;
}

/**
 * The sockets of a /proc/net/tcp{,6} text whose `local remote` key is wanted. One
 * pass over the lines serves every lookup of a batch. Inode 0 (a socket no process
 * holds any more, e.g. in TIME_WAIT) is left out.
 */
export function findProcSockets(text: string, wanted: ReadonlySet<string>): Map<string, ProcSocket> {
  const found = new Map<string, ProcSocket>();
  scanProcLines(text, wanted, found);
  return found;
}

/**
 * Adds the wanted sockets among whole table lines to `found`, so a table can be read
 * in pieces and left once everything is found. The header line has no `sl:` and is
 * passed over.
 */
export function scanProcLines(text: string, wanted: ReadonlySet<string>, found: Map<string, ProcSocket>): void {
  let at = 0;
  while (at < text.length && found.size < wanted.size) {
    const end = text.indexOf('\n', at);
    const lineEnd = end < 0 ? text.length : end;
    // `  sl: local remote ...`: the two addresses have the same width, so the key is
    // cut out without splitting the line; busy machines have tens of thousands.
    const colon = text.indexOf(':', at);
    const start = colon + 2;
    const width = text.indexOf(' ', start) - start;
    const key = colon >= 0 && width > 0 && start + 2 * width + 1 <= lineEnd ? text.slice(start, start + 2 * width + 1) : '';
    if (wanted.has(key)) {
      // sl local rem st tx:rx tr:when retrnsmt uid timeout inode ...
      const fields = text.slice(at, lineEnd).trim().split(/\s+/);
      const inode = Number(fields[9]);
      const uid = Number(fields[7]);
      if (Number.isInteger(inode) && inode > 0 && Number.isInteger(uid)) found.set(key, { inode, uid });
    }
    at = lineEnd + 1;
  }
}

