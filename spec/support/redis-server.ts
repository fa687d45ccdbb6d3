import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import tls from 'node:tls';
import { reap } from './child-reaper.js';
import { findBinary } from './find-binary.js';
import { freePort } from './free-port.js';
import { suite, type Test } from 'uvu';

/** How long a stop waits for the server to exit before it kills it. */
const STOP_WAIT_MS = 20_000;

export interface RedisServer {
  port: number;
  url: string;
  /** The server's own data dir (AOF), kept across restarts. */
  dir: string;
  /** Stops the server (SIGTERM) and waits for its exit. */
  stop(): Promise<void>;
  /** SIGKILLs the server and waits for its exit: a crash, with what the AOF holds surviving. */
  kill9(): Promise<void>;
  /** Starts the server again on the same port and dir; resolves once PING answers. */
  restart(): Promise<void>;
  /** CLIENT PAUSE: the server holds every client's commands unanswered for `ms`. */
  pause(ms: number): Promise<void>;
  /**
   * SIGSTOP: the server answers nothing while its connections stay open, as a hung or
   * partitioned Redis; `thaw` (SIGCONT) lets it go on.
   */
  freeze(): void;
  thaw(): void;
  /** Stops the server and removes its dir. */
  close(): Promise<void>;
}

/** The PEM files of a Redis served over TLS only, which asks every client for a certificate of `ca`. */
export interface RedisServerTls {
  ca: string;
  server: { cert: string; key: string };
  /** The certificate the harness itself connects with (its readiness check). */
  client: { cert: string; key: string };
}

/**
 * A throwaway real redis-server on a free loopback port with its own temp dir, set up
 * as a fleet's Redis should be for the outbox: AOF on with `appendfsync always` (with
 * `everysec` Redis may answer a write whose AOF write it postponed, and a kill -9 then
 * loses it), no RDB snapshots, noeviction; `extraArgs` adds to that (a cluster node's,
 * ACL users). With `tls` the port is a TLS port (`rediss://`) and there is no plain one.
 */
export async function startRedisServer(extraArgs: readonly string[] = [], opts: { tls?: RedisServerTls } = {}): Promise<RedisServer> {
  const binary = findBinary('redis-server');
  if (binary === null) throw new Error('redis-server is not installed (apt-get install redis-server)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weir-redis-'));
  const port = await freePort();
  let child: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  const connector = connectorOf(port, opts.tls);

  const launch = async (): Promise<void> => {
    const args = [...listenArgs(port, opts.tls), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--maxmemory-policy', 'noeviction', ...extraArgs];
    const proc = spawn(binary, args, { stdio: 'ignore' });
    reap(proc);
    exited = new Promise((resolve) => proc.once('exit', () => resolve()));
    child = proc;
    await waitForPong(connector, proc, 10_000);
  };
  const signal = async (sig: NodeJS.Signals): Promise<void> => {
    const proc = child;
    if (proc && proc.exitCode === null && proc.signalCode === null) proc.kill(sig);
    // A cluster master that cannot finish its shutdown keeps running: a spec's end must not wait for ever.
    const late = setTimeout(() => proc?.kill('SIGKILL'), STOP_WAIT_MS);
    await exited;
    clearTimeout(late);
    child = null;
  };

  await launch().catch((err: unknown) => {
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  });
  return {
    port,
    url: `${opts.tls ? 'rediss' : 'redis'}://127.0.0.1:${port}`,
    dir,
    stop: () => signal('SIGTERM'),
    kill9: () => signal('SIGKILL'),
    restart: launch,
    pause: async (ms) => {
      const answer = await inline(connector, `CLIENT PAUSE ${ms} ALL`);
      if (!answer.startsWith('+OK')) throw new Error(`CLIENT PAUSE answered ${answer.trim()}`);
    },
    freeze: () => child?.kill('SIGSTOP'),
    thaw: () => child?.kill('SIGCONT'),
    close: async () => {
      await signal('SIGTERM');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh connection to the server, and the event that says it can take a command. */
type Connector = { port: number; connect: () => { socket: net.Socket; ready: 'connect' | 'secureConnect' } };

function listenArgs(port: number, tlsFiles: RedisServerTls | undefined): string[] {
  if (!tlsFiles) return ['--port', String(port)];
  const { ca, server } = tlsFiles;
  return ['--port', '0', '--tls-port', String(port), '--tls-cert-file', server.cert, '--tls-key-file', server.key, '--tls-ca-cert-file', ca, '--tls-auth-clients', 'yes'];
}

function connectorOf(port: number, tlsFiles: RedisServerTls | undefined): Connector {
  if (!tlsFiles) return { port, connect: () => ({ socket: net.connect({ host: '127.0.0.1', port }), ready: 'connect' }) };
  const [ca, cert, key] = [tlsFiles.ca, tlsFiles.client.cert, tlsFiles.client.key].map((f) => fs.readFileSync(f));
  return { port, connect: () => ({ socket: tls.connect({ host: '127.0.0.1', port, ca, cert, key }), ready: 'secureConnect' }) };
}

async function waitForPong(connector: Connector, proc: ChildProcess, timeoutMs: number): Promise<void> {
  const { port } = connector;
  const deadline = Date.now() + timeoutMs;
  while (!(await ping(connector))) {
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`redis-server on port ${port} exited at start`);
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer PING within ${timeoutMs} ms`);
    await sleep(25);
  }
}

/**
 * One inline PING; true once the server answers it, with +PONG or, when the default
 * user is disabled, -NOAUTH (not on -LOADING while the AOF is being read).
 */
async function ping(connector: Connector): Promise<boolean> {
  return /^(\+PONG|-NOAUTH)/.test(await inline(connector, 'PING'));
}

/** One inline command on a connection of its own: its first reply line, or '' on error or after 1 s. */
function inline(connector: Connector, command: string): Promise<string> {
  return new Promise((resolve) => {
    const { socket, ready } = connector.connect();
    let answer = '';
    const done = (line: string): void => {
      socket.destroy();
      resolve(line);
    };
    socket.setTimeout(1000, () => done(''));
    socket.once('error', () => done(''));
    socket.once(ready, () => socket.write(`${command}\r\n`));
    socket.on('data', (d: Buffer) => {
      answer += d.toString();
      if (answer.includes('\r\n')) done(answer);
    });
  });
}

/** A uvu suite whose tests share one redis-server, started with the suite and stopped after its last test. */
export function redisSuite(name: string): { test: Test; server: Promise<RedisServer> } {
  const test = suite(name);
  const server = startRedisServer();
  test.after(async () => (await server).close());
  return { test, server };
}
