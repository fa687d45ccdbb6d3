import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { BenchChildError, stopChild, track } from './children.js';
import { loadArgs, type LoadJob } from './load-job.js';
import { parseLoadLine, type IdleResult, type LoadLine, type RateResult, type StreamResult } from './load-output.js';

type ResultOf<J extends LoadJob> = J['kind'] extends 'stream' ? StreamResult : J['kind'] extends 'rate' ? RateResult : IdleResult;

/**
 * Runs one job in a fresh native load client (binary) and returns its final result line.
 * For an idle job, onHeld runs while the tunnels are open (it must have the origin close
 * them); the result is the `held` line. The client's stdin stays open: its end tells an
 * orphaned client to quit.
 */
export async function runLoad<J extends LoadJob>(
  binary: string,
  job: J,
  timeoutMs: number,
  onHeld: (held: IdleResult) => Promise<void> = async () => {},
): Promise<ResultOf<J>> {
  const child = spawn(binary, loadArgs(job), { detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  const started = track(`load-${job.kind}`, child);
  const lines = readline.createInterface({ input: child.stdout! });
  let timer: NodeJS.Timeout | undefined;
  try {
    return await new Promise<ResultOf<J>>((resolve, reject) => {
      timer = setTimeout(() => reject(new BenchChildError(`${job.kind} load did not finish in ${timeoutMs} ms`)), timeoutMs);
      let held: IdleResult | null = null;
      // 'close' comes after stdout is drained: an 'exit' can overtake the result line.
      child.once('close', (code) => reject(new BenchChildError(`${job.kind} load exited (${code}) without a result: ${started.stderrTail().trim()}`)));
      lines.on('line', (text) => {
        let line: LoadLine;
        try {
          line = parseLoadLine(text);
        } catch (error) {
          reject(error);
          return;
        }
        if (line.mode === 'error') reject(new BenchChildError(`${job.kind} load failed: ${line.message}`));
        else if (line.mode === 'idle' && line.event === 'held') {
          held = line;
          onHeld(line).catch(reject);
        } else if (line.mode === 'idle') resolve(held as ResultOf<J>);
        else resolve(line as ResultOf<J>);
      });
    });
  } finally {
    clearTimeout(timer);
    lines.close();
    await stopChild(started);
  }
}
