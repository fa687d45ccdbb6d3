import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BenchChildError, stopChild, track, type Started } from './children.js';
import type { AckReceiver } from './sink-receiver.js';
import type { DrainedWorker, FromHarness, HotPath, RawBullmqResult, SinkJob, ToHarness } from './sink-messages.js';

const HARNESS = fileURLToPath(new URL('./sink-harness.js', import.meta.url));

/** A sink harness child and the messages it sent that nobody has taken yet. */
class Harness {
  private readonly child: ChildProcess;
  private readonly started: Started;
  private readonly inbox: FromHarness[] = [];
  private wake: (() => void) | null = null;

  constructor(name: string) {
    this.child = fork(HARNESS, [], { detached: true, stdio: ['ignore', 'inherit', 'pipe', 'ipc'] });
    this.started = track(name, this.child);
    this.child.on('message', (m: FromHarness) => {
      this.inbox.push(m);
      this.wake?.();
    });
    this.child.once('exit', () => this.wake?.());
  }

  send(message: ToHarness): void {
    this.child.send(message);
  }

  /** The next message of this type; fails on an error message, on exit, or after timeoutMs. */
  async next<T extends FromHarness['type']>(type: T, timeoutMs: number): Promise<Extract<FromHarness, { type: T }>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const error = this.inbox.find((m) => m.type === 'error');
      if (error?.type === 'error') throw new BenchChildError(`${this.started.name}: ${error.message}`);
      const index = this.inbox.findIndex((m) => m.type === type);
      if (index >= 0) return this.inbox.splice(index, 1)[0] as Extract<FromHarness, { type: T }>;
      if (this.child.exitCode !== null || this.child.signalCode !== null) {
        throw new BenchChildError(`${this.started.name} exited before "${type}": ${this.started.stderrTail().trim()}`);
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new BenchChildError(`${this.started.name}: no "${type}" within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          this.wake = null;
          resolve();
        };
      });
    }
  }

  stop(): Promise<void> {
    return stopChild(this.started);
  }
}

type Job<K extends SinkJob['kind']> = Extract<SinkJob, { kind: K }>;

/**
 * Runs one deliver job and returns events/s: the harness starts its node and publishes
 * a burst on the go; the clock runs here, from the go until the receiver has
 * acknowledged every event.
 */
export async function runDelivery(job: Job<'deliver'>, receiver: AckReceiver, timeoutMs: number): Promise<number> {
  const harness = new Harness(`sink-${job.node.store}`);
  try {
    harness.send({ type: 'job', job });
    await harness.next('ready', 60_000);
    const acknowledged = receiver.expect(job.events, timeoutMs);
    const start = performance.now();
    harness.send({ type: 'go' });
    const [, end] = await Promise.all([harness.next('published', timeoutMs), acknowledged]);
    if (end === null) throw new BenchChildError(`the receiver acknowledged ${receiver.counted()} of ${job.events} events in ${timeoutMs} ms`);
    harness.send({ type: 'stop' });
    await harness.next('stopped', 30_000);
    return job.events / ((end - start) / 1000);
  } finally {
    await harness.stop();
  }
}

/** Runs one hot-path job in a node process of its own. */
export async function runHotPath(job: Job<'hot'>, timeoutMs: number): Promise<HotPath> {
  const harness = new Harness(`hot-${job.node.store}`);
  try {
    harness.send({ type: 'job', job });
    return (await harness.next('hot', timeoutMs)).hot;
  } finally {
    await harness.stop();
  }
}

/** Runs the raw BullMQ job in a process of its own, like the node's. */
export async function runRawBullmq(job: Job<'bullmq'>): Promise<RawBullmqResult> {
  const harness = new Harness('raw-bullmq');
  try {
    harness.send({ type: 'job', job });
    const { result } = await harness.next('bullmq', job.timeoutMs + 30_000);
    if (result.completed < job.jobs) throw new BenchChildError(`raw BullMQ completed ${result.completed} of ${job.jobs} jobs in ${job.timeoutMs} ms`);
    return result;
  } finally {
    await harness.stop();
  }
}

/** A raw BullMQ worker in a process of its own, taking jobs from its start; `stop` ends it and tells what it completed. */
export function startBullmqWorker(job: Job<'bullmq-worker'>, name: string): { stop(): Promise<DrainedWorker> } {
  const harness = new Harness(name);
  harness.send({ type: 'job', job });
  return {
    stop: async () => {
      try {
        harness.send({ type: 'stop' });
        return (await harness.next('drained', 30_000)).drained;
      } finally {
        await harness.stop();
      }
    },
  };
}
