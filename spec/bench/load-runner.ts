import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BenchChildError, stopChild, track } from './children.js';
import type { IdleHeld, Job, JobResult } from './load-jobs.js';
import type { FromLoad, ToLoad } from './load-messages.js';

const CLIENT = fileURLToPath(new URL('./load-client.js', import.meta.url));

/**
 * Runs one job in a fresh load-client process and returns its result. For an idle job,
 * onHeld runs while the tunnels are open; they close when it returns.
 */
export async function runLoad(
  job: Job,
  timeoutMs: number,
  onHeld: (state: IdleHeld) => Promise<void> = async () => {},
): Promise<JobResult> {
  const child = fork(CLIENT, [], { detached: true, stdio: ['ignore', 'inherit', 'pipe', 'ipc'] });
  const started = track(`load-${job.kind}`, child);
  let timer: NodeJS.Timeout | undefined;
  try {
    return await new Promise<JobResult>((resolve, reject) => {
      timer = setTimeout(() => reject(new BenchChildError(`${job.kind} load did not finish in ${timeoutMs} ms`)), timeoutMs);
      child.once('exit', (code) =>
        reject(new BenchChildError(`${job.kind} load exited (${code}) without a result: ${started.stderrTail().trim()}`)),
      );
      child.on('message', (m: FromLoad) => {
        if (m.type === 'result') resolve(m.result);
        else if (m.type === 'error') reject(new BenchChildError(`${job.kind} load failed: ${m.message}`));
        else
          onHeld(m.state).then(
            () => child.send({ type: 'release' } satisfies ToLoad),
            (error: unknown) => reject(error),
          );
      });
      child.send({ type: 'job', job } satisfies ToLoad);
    });
  } finally {
    clearTimeout(timer);
    await stopChild(started);
  }
}
