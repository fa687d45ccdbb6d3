import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { hasExited, waitListening } from './listening.js';
import { readyPorts } from './ready-facts.js';
import { bootSlot } from './start-slots.js';
import { tempDir } from './temp-dir.js';
import { spawnWeir } from './weir-child.js';

export interface StartNodeOptions {
  /** Extra environment, e.g. the variables `{ "env": NAME }` secrets name. */
  env?: Record<string, string>;
  /** Bound on the wait for the node to serve, from the spawn. @defaultValue 30000 */
  readyTimeoutMs?: number;
  /** Starts `weir run FILE` (the file as the positional argument) instead of `weir run -c FILE`. */
  positionalConfig?: boolean;
  /** More `weir run` arguments, e.g. `--log-format pretty`. @defaultValue [] */
  runArgs?: string[];
  /** Runs the node under this open-files limit (`ulimit -n`). */
  fdLimit?: number;
}

export interface WeirNode {
  pid: number;
  /** node.state_dir of the config (a temp dir when the config has none). */
  stateDir: string;
  configPath: string;
  /** Inbound tag → listening port: the config's, or the one the kernel gave a `port: 0` inbound. */
  ports: Record<string, number>;
  /** The control plane's base URL (`http://host:port`, no `/api/v1`), from the ready line. */
  controlUrl(): string;
  stdout(): string;
  stderr(): string;
  /** Sends `signal` and resolves with the exit code (SIGKILL after 10 s: then null). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  kill9(): Promise<void>;
}

interface InboundLiteral {
  tag: string;
  listen?: string;
  port: number;
}

/**
 * Writes `config` to a file, starts `weir run -c file` and resolves once it serves: when
 * an inbound asks for port 0, once the ready line names the ports the kernel gave;
 * otherwise once every inbound port accepts a connection (the ready line may still be
 * on its way then). The child is killed when the test process exits.
 */
export async function startNode(config: Record<string, unknown>, opts: StartNodeOptions = {}): Promise<WeirNode> {
  const stateDir = (config['node'] as { state_dir?: string } | undefined)?.state_dir ?? tempDir();
  fs.mkdirSync(stateDir, { recursive: true });
  const configPath = path.join(stateDir, 'weir.json');
  fs.writeFileSync(configPath, JSON.stringify(config, null, 2));
  const inbounds = (config['inbounds'] as InboundLiteral[] | undefined) ?? [];

  const release = await bootSlot();
  const runArgs = [...(opts.positionalConfig ? ['run', configPath] : ['run', '-c', configPath]), ...(opts.runArgs ?? [])];
  const weir = spawnWeir(runArgs, opts.env, opts.fdLimit);
  const { child } = weir;

  const node: WeirNode = {
    pid: child.pid!,
    stateDir,
    configPath,
    ports: Object.fromEntries(inbounds.map((i) => [i.tag, i.port])),
    controlUrl: () => {
      const ready = readyPorts(weir.stderr(), []);
      if (!ready) throw new Error(`weir printed no ready line yet; stderr: ${weir.stderr()}`);
      return ready.controlUrl;
    },
    stdout: weir.stdout,
    stderr: weir.stderr,
    stop: (signal = 'SIGTERM') => weir.stop(signal),
    kill9: async () => void (await weir.stop('SIGKILL')),
  };
  try {
    const timeoutMs = opts.readyTimeoutMs ?? 30_000;
    if (inbounds.some((i) => i.port === 0)) {
      node.ports = await waitUntilReady(child, weir.stderr, inbounds, timeoutMs);
    } else {
      await waitUntilListening(child, inbounds, timeoutMs);
    }
  } catch (error) {
    await node.kill9();
    throw new Error(`${(error as Error).message}\nstdout: ${weir.stdout()}\nstderr: ${weir.stderr()}`, { cause: error });
  } finally {
    release();
  }
  return node;
}

async function waitUntilListening(child: ChildProcess, inbounds: readonly InboundLiteral[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (const [i, inbound] of inbounds.entries()) {
    const state = await waitListening(child, inbound.port, deadline - Date.now(), inbound.listen ?? '127.0.0.1');
    if (state === 'exited') throw new Error(`weir exited (code ${child.exitCode}, signal ${child.signalCode}) before listening`);
    if (state === 'timed out') {
      const pending = inbounds.slice(i).map((p) => `${p.tag}:${p.port}`);
      throw new Error(`weir did not listen on ${pending.join(', ')} within ${timeoutMs} ms`);
    }
  }
}

/** Polls the node's stderr for the ready line until `child` exits or `timeoutMs` passes; resolves with its inbound ports. */
async function waitUntilReady(
  child: ChildProcess,
  stderr: () => string,
  inbounds: readonly InboundLiteral[],
  timeoutMs: number,
): Promise<Record<string, number>> {
  const deadline = Date.now() + timeoutMs;
  const tags = inbounds.map((i) => i.tag);
  for (;;) {
    const ready = readyPorts(stderr(), tags);
    if (ready) return ready.inbounds;
    if (hasExited(child)) throw new Error(`weir exited (code ${child.exitCode}, signal ${child.signalCode}) before its ready line`);
    if (Date.now() >= deadline) throw new Error(`weir printed no ready line within ${timeoutMs} ms`);
    await sleep(25);
  }
}
