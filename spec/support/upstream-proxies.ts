import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type net from 'node:net';
import path from 'node:path';
import { reapGroup } from './child-reaper.js';
import { danteConfig } from './dante-config.js';
import { findBinary } from './find-binary.js';
import { freePort } from './free-port.js';
import { waitListening } from './listening.js';
import { signalGroup, stopGroup } from './process-group.js';
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

function binary(name: string): string {
  const found = findBinary(name);
  if (found === null) throw new Error(`${name} is not installed (apt-get install microsocks dante-server tinyproxy)`);
  return found;
}

async function launch(name: string, protocol: UpstreamProxy['protocol'], argv: (port: number) => string[]): Promise<UpstreamProxy> {
  // The port is free when picked and taken by the proxy a moment later: retry a lost race.
  let last = '';
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const [file, ...args] = argv(port);
    // A group of its own: Dante forks helpers that must die with it.
    const child = spawn(file!, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    reapGroup(child);
    // Unreferenced like the weir child: a failed test must not hold the runner open.
    child.unref();
    let out = '';
    for (const stream of [child.stdout!, child.stderr!]) {
      (stream as net.Socket).unref();
      stream.on('data', (d: Buffer) => (out = (out + d.toString()).slice(-4000)));
    }
    if ((await waitListening(child, port, 10_000)) === 'listening') return running(name, protocol, port, child, () => out);
    signalGroup(child.pid!, 'SIGKILL');
    last = `${name} did not listen on 127.0.0.1:${port}: ${out.trim()}`;
  }
  throw new Error(last);
}

function running(name: string, protocol: UpstreamProxy['protocol'], port: number, child: ChildProcess, output: () => string): UpstreamProxy {
  return {
    name,
    protocol,
    port,
    pid: child.pid!,
    output,
    stop: () => stopGroup(child),
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
    fs.writeFileSync(conf, danteConfig(port, dir, opts));
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
