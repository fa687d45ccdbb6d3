// Child process entry: runs one load job so the client's CPU work has an event loop to itself.
import { connectionRate, holdIdle, throughput, type IdleHeld, type Job, type JobResult } from './load-jobs.js';
import type { FromLoad, ToLoad } from './load-messages.js';

function send(message: FromLoad): Promise<void> {
  return new Promise((resolve) => process.send?.(message, () => resolve()));
}

function released(): Promise<void> {
  return new Promise((resolve) => {
    process.on('message', (m: ToLoad) => {
      if (m.type === 'release') resolve();
    });
  });
}

function run(job: Job): Promise<JobResult> {
  switch (job.kind) {
    case 'throughput':
      return throughput(job);
    case 'rate':
      return connectionRate(job);
    case 'idle':
      return holdIdle(job, async (state: IdleHeld) => {
        const release = released();
        await send({ type: 'held', state });
        await release;
      });
  }
}

// The bench may die without telling us; an orphaned load client must not linger.
process.on('disconnect', () => process.exit(0));

process.once('message', async (m: ToLoad) => {
  if (m.type !== 'job') return;
  try {
    await send({ type: 'result', result: await run(m.job) });
  } catch (error) {
    await send({ type: 'error', message: error instanceof Error ? error.message : String(error) });
  }
  process.exit(0);
});
