import path from 'node:path';

/**
 * A danted.conf for SOCKS5 without authentication on 127.0.0.1:port, loopback to
 * loopback, logging to `dir`. With `udp`, UDP ASSOCIATE is allowed too, and replies
 * from loopback come back (udpreply).
 */
export function danteConfig(port: number, dir: string, opts: { udp?: boolean } = {}): string {
  return [
    `logoutput: ${path.join(dir, 'danted.log')}`,
    `internal: 127.0.0.1 port = ${port}`,
    'external: 127.0.0.1',
    'clientmethod: none',
    'socksmethod: none',
    'user.privileged: root',
    'user.unprivileged: nobody',
    'client pass { from: 127.0.0.0/8 to: 127.0.0.0/8 }',
    `socks pass { from: 127.0.0.0/8 to: 127.0.0.0/8 command: connect${opts.udp ? ' udpassociate' : ''} }`,
    ...(opts.udp ? ['socks pass { from: 127.0.0.0/8 to: 127.0.0.0/8 command: udpreply }'] : []),
    '',
  ].join('\n');
}
