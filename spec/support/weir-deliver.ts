import { spawn } from 'node:child_process';
import net from 'node:net';
import { reap } from './child-reaper.js';
import { freePorts } from './free-port.js';
import { hasExited } from './listening.js';
import { waitFor } from './wait-for.js';
import { WEIR_BIN } from './weir-bin.js';

export interface DeliverProcess {
  pid: number;
  /** The queues it delivers now (`node/sink`), from its GET /health. */
  queues(): Promise<string[]>;
  /** Its log (JSON lines). */
  stdout(): string;
  stderr(): string;
  stop(): Promise<number | null>;
  kill9(): Promise<void>;
}

/** Starts `weir deliver -c configPath` with a health listener, resolved once it delivers `queue` (`node/sink`). */
export async function startDeliver(configPath: string, queue: string, extra: readonly string[] = []): Promise<DeliverProcess> {
  const [port] = await freePorts(1);
  const child = spawn(WEIR_BIN, ['deliver', '-c', configPath, '--health', `127.0.0.1:${port}`, ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  reap(child);
  child.unref();
  for (const stream of [child.stdout, child.stderr]) (stream as net.Socket).unref();
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  const queues = async (): Promise<string[]> => {
    const res = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2000) });
    return ((await res.json()) as { queues: string[] }).queues;
  };
  const end = async (signal: NodeJS.Signals): Promise<number | null> => {
    if (!hasExited(child)) child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const code = await exit;
    clearTimeout(timer);
    return code;
  };
  try {
    await waitFor(() => !hasExited(child) && queues().then((q) => q.includes(queue), () => false), 15_000, `weir deliver delivering ${queue}`);
  } catch (error) {
    await end('SIGKILL');
    throw new Error(`${(error as Error).message}\nstderr: ${err}`, { cause: error });
  }
  return {
    pid: child.pid!,
    queues,
    stdout: () => out,
    stderr: () => err,
    stop: () => end('SIGTERM'),
    kill9: async () => void (await end('SIGKILL')),
  };
}
