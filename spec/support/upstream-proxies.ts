import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from './free-port.js';
import { tempDir } from './temp-dir.js';

/** A real upstream proxy from Debian's packages, listening on 127.0.0.1:port. */
export interface UpstreamProxy {
  /** microsocks, danted or tinyproxy. */
  name: string;
  protocol: 'socks' | 'http';
  port: number;
  pid: number;
  /** What the proxy wrote to stderr (and, for tinyproxy, stdout), for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

export interface ProxyCredentials {
  username: string;
  password: string;
}

// danted lives in /usr/sbin, which a non-root PATH may lack.
const SEARCH_PATH = [...(process.env['PATH'] ?? '').split(':'), '/usr/sbin', '/sbin'];

function binary(name: string): string {
  for (const dir of SEARCH_PATH) {
    const candidate = path.join(dir, name);
    if (fs.existsSync(candidate)) return candidate;
  }
  throw new Error(`${name} is not installed (apt-get install microsocks dante-server tinyproxy)`);
}

// Each proxy runs in its own process group: Dante forks helpers that must die with it.
const groups = new Set<number>();
let hooked = false;

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is gone already.
  }
}

function track(child: ChildProcess): void {
  groups.add(child.pid!);
  child.once('exit', () => killGroup(child.pid!, 'SIGKILL'));
  if (hooked) return;
  hooked = true;
  process.on('exit', () => {
    for (const pid of groups) killGroup(pid, 'SIGKILL');
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function launch(name: string, protocol: UpstreamProxy['protocol'], argv: (port: number) => string[]): Promise<UpstreamProxy> {
  // The port is free when picked and taken by the proxy a moment later: retry a lost race.
  let last = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const [file, ...args] = argv(port);
    const child = spawn(file!, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    track(child);
    // Unreferenced like the weir child: a failed test must not hold the runner open.
    child.unref();
    let out = '';
    for (const stream of [child.stdout!, child.stderr!]) {
      (stream as net.Socket).unref();
      stream.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-4000)));
    }
    const exited = (): boolean => child.exitCode !== null || child.signalCode !== null;
    const deadline = Date.now() + 10_000;
    while (!exited() && Date.now() < deadline && !(await accepts(port))) await sleep(25);
    if (!exited() && Date.now() < deadline) return running(name, protocol, port, child, () => out);
    killGroup(child.pid!, 'SIGKILL');
    last = `${name} did not listen on 127.0.0.1:${port}: ${out.trim()}`;
  }
  throw new Error(last);
}

function running(name: string, protocol: UpstreamProxy['protocol'], port: number, child: ChildProcess, output: () => string): UpstreamProxy {
  const exit = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    name,
    protocol,
    port,
    pid: child.pid!,
    output,
    stop: async () => {
      killGroup(child.pid!, 'SIGTERM');
      const done = await Promise.race([exit.then(() => true), sleep(2000).then(() => false)]);
      killGroup(child.pid!, 'SIGKILL');
      if (!done) await exit;
      groups.delete(child.pid!);
    },
  };
}

/** microsocks: SOCKS5, with username/password (`-u`/`-P`) when given. */
export function startMicrosocks(user?: ProxyCredentials): Promise<UpstreamProxy> {
  const auth = user ? ['-u', user.username, '-P', user.password] : [];
  return launch('microsocks', 'socks', (port) => [binary('microsocks'), '-i', '127.0.0.1', '-p', String(port), ...auth]);
}

/**
 * Dante (danted): SOCKS5 without authentication, loopback to loopback, in the foreground.
 * With `udp`, UDP ASSOCIATE is allowed too, and replies from loopback come back (udpreply).
 */
export function startDante(opts: { udp?: boolean } = {}): Promise<UpstreamProxy> {
  const dir = tempDir('weir-dante-');
  fs.chmodSync(dir, 0o755);
  return launch('danted', 'socks', (port) => {
    const conf = path.join(dir, `danted-${port}.conf`);
    fs.writeFileSync(
      conf,
      [
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
      ].join('\n'),
    );
    return [binary('danted'), '-f', conf, '-p', path.join(dir, `danted-${port}.pid`)];
  });
}

/**
 * tinyproxy: HTTP CONNECT, in the foreground (`-d`). Without a ConnectPort line every
 * port may be CONNECTed to (the packaged config limits CONNECT to 443 and 563).
 */
export function startTinyproxy(user?: ProxyCredentials): Promise<UpstreamProxy> {
  const dir = tempDir('weir-tinyproxy-');
  return launch('tinyproxy', 'http', (port) => {
    const conf = path.join(dir, `tinyproxy-${port}.conf`);
    const lines = [`Port ${port}`, 'Listen 127.0.0.1', 'Allow 127.0.0.1', 'LogLevel Warning', 'MaxClients 100', 'Timeout 30'];
    if (user) lines.push(`BasicAuth ${user.username} ${user.password}`);
    fs.writeFileSync(conf, `${lines.join('\n')}\n`);
    return [binary('tinyproxy'), '-d', '-c', conf];
  });
}
