import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { BenchChildError, stopChild, track } from './children.js';
import { treeCpuTicks } from './proc-stats.js';

/**
 * The native origin (weir-load.c `origin`) the proxies connect to. It closes every
 * connection first, so TIME_WAIT lands on its listening ports; were clients to close
 * first, each connection would park an ephemeral port for 60 s and a run would exhaust
 * the range (Dante binds its outgoing sockets before connecting and fails first).
 */
export interface Origins {
  /** Reads an 8-byte big-endian length and that many bytes, answers one byte, closes. */
  readonly sinkPort: number;
  /** Echoes until closeEchoes() closes its connections. */
  readonly echoPort: number;
  /** Echoes the 16 bytes of a short-connection cycle, then closes. */
  readonly echoOncePort: number;
  /** CPU time the origin used so far, in clock ticks. */
  cpuTicks(): number;
  closeEchoes(): void;
  close(): Promise<void>;
}

export async function startOrigins(binary: string): Promise<Origins> {
  const child = spawn(binary, ['origin'], { detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  const started = track('origin', child);
  const lines = readline.createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new BenchChildError('the origin did not start in 5 s')), 5000);
    child.once('exit', () => reject(new BenchChildError(`the origin exited: ${started.stderrTail().trim()}`)));
    lines.once('line', (line) => {
      clearTimeout(timer);
      resolve(line);
    });
  }).catch(async (error: unknown) => {
    await stopChild(started);
    throw error;
  });
  const ports = JSON.parse(first) as { sink?: number; echo?: number; echo_once?: number; error?: string };
  if (ports.error || !ports.sink || !ports.echo || !ports.echo_once) {
    await stopChild(started);
    throw new BenchChildError(`the origin did not start: ${first}`);
  }
  return {
    sinkPort: ports.sink,
    echoPort: ports.echo,
    echoOncePort: ports.echo_once,
    cpuTicks: () => treeCpuTicks(started.pid),
    closeEchoes: () => child.stdin!.write('close-echoes\n'),
    close: async () => {
      lines.close();
      child.stdin!.end();
      await stopChild(started);
    },
  };
}
