import { freePorts } from './free-port.js';
import { hasExited } from './listening.js';
import { waitFor } from './wait-for.js';
import { spawnWeir } from './weir-child.js';

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
  const weir = spawnWeir(['deliver', '-c', configPath, '--health', `127.0.0.1:${port}`, ...extra]);
  const { child } = weir;
  const queues = async (): Promise<string[]> => {
    const res = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2000) });
    return ((await res.json()) as { queues: string[] }).queues;
  };
  try {
    await waitFor(() => !hasExited(child) && queues().then((q) => q.includes(queue), () => false), 15_000, `weir deliver delivering ${queue}`);
  } catch (error) {
    await weir.stop('SIGKILL');
    throw new Error(`${(error as Error).message}\nstderr: ${weir.stderr()}`, { cause: error });
  }
  return {
    pid: child.pid!,
    queues,
    stdout: weir.stdout,
    stderr: weir.stderr,
    stop: () => weir.stop('SIGTERM'),
    kill9: async () => void (await weir.stop('SIGKILL')),
  };
}
