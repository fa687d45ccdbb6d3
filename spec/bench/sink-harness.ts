// Child process entry: one sink measurement, so the node's event loop has a process to itself.
import { drainingWorker, rawBullmq } from './bullmq-raw.js';
import { completedFlows } from './sink-events.js';
import { measureHotPath } from './sink-hot-path.js';
import type { FromHarness, SinkJob, ToHarness } from './sink-messages.js';
import { engineFor, publishTimed } from './sink-node.js';

const waiting = new Map<ToHarness['type'], () => void>();

function send(message: FromHarness): Promise<void> {
  return new Promise((resolve) => process.send?.(message, () => resolve()));
}

/** Registered before the message that prompts it is sent, so an early answer is not missed. */
function awaitMessage(type: 'go' | 'stop'): Promise<void> {
  return new Promise((resolve) => waiting.set(type, resolve));
}

/** Starts the node, publishes the burst on `go`, and stops the node on `stop`. */
async function deliver(job: Extract<SinkJob, { kind: 'deliver' }>): Promise<void> {
  const engine = engineFor(job.node);
  const events = completedFlows(job.events, 'flow');
  await engine.start();
  const go = awaitMessage('go');
  await send({ type: 'ready' });
  await go;
  await publishTimed(engine.bus, events, job.chunk);
  const stop = awaitMessage('stop');
  await send({ type: 'published' });
  await stop;
  await engine.stop('bench');
  await send({ type: 'stopped' });
}

async function run(job: SinkJob): Promise<void> {
  try {
    if (job.kind === 'deliver') await deliver(job);
    else if (job.kind === 'hot') await send({ type: 'hot', hot: await measureHotPath(job) });
    else if (job.kind === 'bullmq-worker') await send({ type: 'drained', drained: await drainingWorker(job, awaitMessage('stop')) });
    else await send({ type: 'bullmq', result: await rawBullmq(job) });
  } catch (error) {
    await send({ type: 'error', message: error instanceof Error ? error.message : String(error) });
  }
  process.exit(0);
}

// The bench may die without telling us; an orphaned harness must not linger.
process.on('disconnect', () => process.exit(0));
process.on('message', (m: ToHarness) => {
  if (m.type === 'job') void run(m.job);
  else waiting.get(m.type)?.();
});
