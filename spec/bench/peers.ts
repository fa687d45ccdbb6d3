import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { danteConfig } from '../support/dante-config.js';
import { findBinary } from '../support/find-binary.js';
import { freePorts } from '../support/free-port.js';
import { spawnGroup, stopChild, waitForPort, type Started } from './children.js';
import type { Proto } from './load-job.js';
import type { Origins } from './origins.js';

export const PEER_NAMES = ['node-socks5', 'node-socks5-malloc', 'node-forward', 'weir', 'weir-w2', 'microsocks', 'dante', 'tinyproxy'] as const;
export type PeerName = (typeof PEER_NAMES)[number];

/** The origin ports a peer's clients reach: a forwarder listens once per origin port. */
export type OriginPort = 'sink' | 'echo' | 'echoOnce';

/** A proxy the bench can start on 127.0.0.1, with its files in dir. */
export interface Peer {
  readonly name: PeerName;
  readonly proto: Proto;
  /** Why the peer cannot run here, or null if it can. */
  readonly missing: string | null;
  /** ports: one per OriginPort for a forwarder (proto none), else one. */
  argv(ports: readonly number[], dir: string, origins: Origins): string[];
}

export interface RunningPeer {
  readonly name: PeerName;
  readonly proto: Proto;
  /** The port a client connects to for each origin port; the same one for a proxy. */
  readonly ports: Readonly<Record<OriginPort, number>>;
  readonly pid: number;
  stop(): Promise<void>;
}

/** The bench's weir peers' control-plane API key (a fixed test value, not a secret). */
export const WEIR_API_KEY = 'bench-key-0123456789';

function writeFile(dir: string, name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

/** Where a weir peer differs from the plain one. */
export interface WeirOptions {
  /** Every flow goes out through the SOCKS5 proxy on 127.0.0.1:hopPort (one chained hop). */
  readonly hopPort?: number;
  /** The control plane's port on 127.0.0.1; a port of the system's choosing without it. */
  readonly controlPort?: number;
  /** node.workers. @defaultValue 1 */
  readonly workers?: number;
}

/** weir with flow tracking, events and a JSONL sink on, as the issue asks. */
function weirConfig(port: number, dir: string, { hopPort, controlPort = 0, workers = 1 }: WeirOptions): string {
  const outbound =
    hopPort === undefined
      ? { type: 'direct', tag: 'direct' }
      : { type: 'socks', tag: 'hop', server: '127.0.0.1', port: hopPort };
  const config = {
    node: { id: 'bench', state_dir: dir, workers },
    log: { level: 'warn' },
    control: { listen: `127.0.0.1:${controlPort}`, api_key: WEIR_API_KEY },
    inbounds: [{ type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port }],
    outbounds: [outbound],
    route: { final: outbound.tag },
    event_sinks: [{ type: 'jsonl', tag: 'archive', path: path.join(dir, 'events.jsonl') }],
  };
  return JSON.stringify(config, null, 2);
}

/** tinyproxy for HTTP CONNECT to any port, in the foreground; 10,000 clients so 5,000 idle tunnels fit. */
function tinyproxyConfig(port: number): string {
  return [
    `Port ${port}`,
    'Listen 127.0.0.1',
    'Timeout 600',
    'MaxClients 10000',
    'Allow 127.0.0.1',
    'LogLevel Critical',
    'User nobody',
    'Group nogroup',
    '',
  ].join('\n');
}

/**
 * weir as a peer, started as users start it (bin/weir, with its malloc settings); a
 * checkout older than bin/weir (ab.js compares builds) runs dist/cli/weir.js under node.
 */
export function weirPeer(repoRoot: string, options: WeirOptions = {}): Peer {
  const weir = path.join(repoRoot, 'dist', 'cli', 'weir.js');
  const bin = path.join(repoRoot, 'bin', 'weir');
  const command = fs.existsSync(bin) ? [bin] : [process.execPath, weir];
  return {
    name: options.workers === 2 ? 'weir-w2' : 'weir',
    proto: 'socks5',
    missing: fs.existsSync(weir) ? null : `not built (${path.relative(repoRoot, weir)} missing; run npx tsc)`,
    argv: ([port], dir) => [...command, 'run', '-c', writeFile(dir, 'weir.json', weirConfig(port as number, dir, options))],
  };
}

/**
 * The glibc malloc settings bin/weir starts node with (its `: "${NAME:=VALUE}"` lines),
 * as `NAME=VALUE` words for env(1): the relay run under them is what weir's stream is
 * judged against, so the two differ by weir's code alone.
 */
export function weirMallocSettings(repoRoot: string): string[] {
  const bin = path.join(repoRoot, 'bin', 'weir');
  const text = fs.existsSync(bin) ? fs.readFileSync(bin, 'utf8') : '';
  return [...text.matchAll(/^: "\$\{(MALLOC_\w+):=(\d+)\}"$/gm)].map(([, name, value]) => `${name}=${value}`);
}

/** The peers in PEER_NAMES order; repoRoot holds dist/. */
export function peers(repoRoot: string): Peer[] {
  const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url));
  const microsocks = findBinary('microsocks');
  const danted = findBinary('danted');
  const tinyproxy = findBinary('tinyproxy');
  const malloc = weirMallocSettings(repoRoot);
  return [
    { name: 'node-socks5', proto: 'socks5', missing: null, argv: ([port]) => [process.execPath, here('./raw-relay.js'), String(port)] },
    {
      name: 'node-socks5-malloc',
      proto: 'socks5',
      missing: malloc.length > 0 ? null : 'bin/weir sets no malloc settings',
      argv: ([port]) => ['env', ...malloc, process.execPath, here('./raw-relay.js'), String(port)],
    },
    {
      name: 'node-forward',
      proto: 'none',
      missing: null,
      argv: (ports, _dir, o) => {
        const targets = [o.sinkPort, o.echoPort, o.echoOncePort];
        return [process.execPath, here('./tcp-forward.js'), ...ports.map((p, i) => `${p}=${targets[i]}`)];
      },
    },
    weirPeer(repoRoot),
    weirPeer(repoRoot, { workers: 2 }),
    {
      name: 'microsocks',
      proto: 'socks5',
      missing: microsocks ? null : 'not installed (apt-get install microsocks)',
      argv: ([port]) => [microsocks ?? 'microsocks', '-i', '127.0.0.1', '-p', String(port)],
    },
    {
      name: 'dante',
      proto: 'socks5',
      missing: danted ? null : 'not installed (apt-get install dante-server)',
      argv: ([port], dir) => [
        danted ?? 'danted',
        '-f',
        writeFile(dir, 'danted.conf', danteConfig(port as number, dir)),
        '-p',
        path.join(dir, 'danted.pid'),
      ],
    },
    {
      name: 'tinyproxy',
      proto: 'http',
      missing: tinyproxy ? null : 'not installed (apt-get install tinyproxy)',
      argv: ([port], dir) => [tinyproxy ?? 'tinyproxy', '-d', '-c', writeFile(dir, 'tinyproxy.conf', tinyproxyConfig(port as number))],
    },
  ];
}

/** Starts a peer on fresh loopback ports, in its own directory under root, and waits until it accepts. */
export async function startPeer(peer: Peer, root: string, origins: Origins, timeoutMs: number): Promise<RunningPeer> {
  const dir = fs.mkdtempSync(path.join(root, `${peer.name}-`));
  fs.chmodSync(dir, 0o755);
  const listens = await freePorts(peer.proto === 'none' ? 3 : 1);
  const started: Started = spawnGroup(peer.name, peer.argv(listens, dir, origins));
  try {
    for (const port of listens) await waitForPort(started, port, timeoutMs);
  } catch (error) {
    await stopChild(started);
    throw error;
  }
  const portOf = (i: number): number => listens[i] ?? (listens[0] as number);
  return {
    name: peer.name,
    proto: peer.proto,
    ports: { sink: portOf(0), echo: portOf(1), echoOnce: portOf(2) },
    pid: started.pid,
    stop: () => stopChild(started),
  };
}
