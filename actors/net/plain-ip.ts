import { isIP } from 'node:net';

/** An IPv4-mapped IPv6 address (`::ffff:1.2.3.4`, as dual-stack sockets report IPv4 peers) written as the IPv4 address it carries. */
export function plainIp(ip: string): string {
  return /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1] ?? ip;
}

/** The address a host names when it is an IP literal (plainly written), else undefined: a name says nothing of its address. */
export function literalIp(host: string): string | undefined {
  return isIP(host) !== 0 ? plainIp(host) : undefined;
}
