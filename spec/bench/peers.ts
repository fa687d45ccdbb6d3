import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { danteConfig } from '../support/dante-config.js';
import { findBinary } from '../support/find-binary.js';
import { freePort } from '../support/free-port.js';
import { spawnGroup, stopChild, waitForPort, type Started } from './children.js';

export const PEER_NAMES = ['node-pipe', 'weir', 'microsocks', 'dante'] as const;
export type PeerName = (typeof PEER_NAMES)[number];

/** A SOCKS5 server the bench can start on 127.0.0.1:port, with its files in dir. */
export interface Peer {
  readonly name: PeerName;
  /** Why the peer cannot run here, or null if it can. */
  readonly missing: string | null;
  argv(port: number, dir: string): string[];
}

export interface RunningPeer {
  readonly name: PeerName;
  readonly port: number;
  readonly pid: number;
  stop(): Promise<void>;
}

function writeFile(dir: string, name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

/**
 * weir with flow tracking, events and a JSONL sink on, as the issue asks. With hopPort,
 * every flow goes out through the SOCKS5 proxy on 127.0.0.1:hopPort (one chained hop).
 */
function weirConfig(port: number, dir: string, hopPort?: number): string {
  const outbound =
    hopPort === undefined
      ? { type: 'direct', tag: 'direct' }
      : { type: 'socks', tag: 'hop', server: '127.0.0.1', port: hopPort };
  const config = {
    node: { id: 'bench', state_dir: dir },
    log: { level: 'warn' },
    control: { listen: '127.0.0.1:0', api_key: 'bench-key-0123456789' },
    inbounds: [{ type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port }],
    outbounds: [outbound],
    route: { final: outbound.tag },
    event_sinks: [{ type: 'jsonl', tag: 'archive', path: path.join(dir, 'events.jsonl') }],
  };
  return JSON.stringify(config, null, 2);
}

/** weir as a peer; with hopPort it chains through the SOCKS5 proxy on that loopback port. */
export function weirPeer(repoRoot: string, hopPort?: number): Peer {
  const weir = path.join(repoRoot, 'dist', 'cli', 'weir.js');
  return {
    name: 'weir',
    missing: fs.existsSync(weir) ? null : `not built (${path.relative(repoRoot, weir)} missing; run npx tsc)`,
    argv: (port, dir) => [process.execPath, weir, 'run', '-c', writeFile(dir, 'weir.json', weirConfig(port, dir, hopPort))],
  };
}

/** The peers in PEER_NAMES order; repoRoot holds dist/. */
export function peers(repoRoot: string): Peer[] {
  const rawRelay = fileURLToPath(new URL('./raw-relay.js', import.meta.url));
  const microsocks = findBinary('microsocks');
  const danted = findBinary('danted');
  return [
    { name: 'node-pipe', missing: null, argv: (port) => [process.execPath, rawRelay, String(port)] },
    weirPeer(repoRoot),
    {
      name: 'microsocks',
      missing: microsocks ? null : 'not installed (apt-get install microsocks)',
      argv: (port) => [microsocks ?? 'microsocks', '-i', '127.0.0.1', '-p', String(port)],
    },
    {
      name: 'dante',
      missing: danted ? null : 'not installed (apt-get install dante-server)',
      argv: (port, dir) => [
        danted ?? 'danted',
        '-f',
        writeFile(dir, 'danted.conf', danteConfig(port, dir)),
        '-p',
        path.join(dir, 'danted.pid'),
      ],
    },
  ];
}

/** Starts a peer on a fresh loopback port, in its own directory under root, and waits until it accepts. */
export async function startPeer(peer: Peer, root: string, timeoutMs: number): Promise<RunningPeer> {
  const dir = fs.mkdtempSync(path.join(root, `${peer.name}-`));
  fs.chmodSync(dir, 0o755);
  const port = await freePort();
  const started: Started = spawnGroup(peer.name, peer.argv(port, dir));
  try {
    await waitForPort(started, port, timeoutMs);
  } catch (error) {
    await stopChild(started);
    throw error;
  }
  return { name: peer.name, port, pid: started.pid, stop: () => stopChild(started) };
}
