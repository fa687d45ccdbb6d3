/** The node a weir sink job builds: one Webhook sink taking flow.completed, on one outbox store. */
export interface SinkNode {
  store: 'embedded' | 'redis';
  /** Set for the redis store. */
  redisUrl: string | null;
  /** The acknowledging receiver's URL. */
  url: string;
  stateDir: string;
  nodeId: string;
  batchSize: number;
  concurrency: number;
}

/** One measurement the sink harness runs in its own process. */
export type SinkJob =
  /** Times the publishing event loop with the sink off, then on; delivery is not waited for. */
  | { kind: 'hot'; node: SinkNode; events: number; chunk: number }
  /** Publishes a burst on `go`; the bench times it until the receiver acknowledged all. */
  | { kind: 'deliver'; node: SinkNode; events: number; chunk: number }
  | { kind: 'bullmq'; redisUrl: string; queue: string; jobs: number; batch: number; concurrency: number; timeoutMs: number }
  /** A raw BullMQ worker taking a filled queue's jobs until `stop`; the bench runs several. */
  | { kind: 'bullmq-worker'; redisUrl: string; queue: string; concurrency: number };

/** Time on the publishing event loop per event, in µs. */
export interface HotPath {
  /** Inside bus.publish with no sink subscribed. */
  publishOffUs: number;
  /** Inside bus.publish with the Webhook sink subscribed (its filter and batching window). */
  publishOnUs: number;
  /** Inside the dispatcher's enqueue: serializing the envelope and starting the outbox append. */
  enqueueUs: number;
}

export interface RawBullmqResult {
  completed: number;
  /** From the first addBulk until the last was answered. */
  addSeconds: number;
  /** From the first addBulk until the worker completed the last job. */
  seconds: number;
}

/** What one raw BullMQ worker process completed; times are Date.now(), null before its first job. */
export interface DrainedWorker {
  completed: number;
  firstAt: number | null;
  lastAt: number | null;
}

export type ToHarness = { type: 'job'; job: SinkJob } | { type: 'go' } | { type: 'stop' };

export type FromHarness =
  | { type: 'ready' }
  | { type: 'published' }
  | { type: 'hot'; hot: HotPath }
  | { type: 'bullmq'; result: RawBullmqResult }
  | { type: 'drained'; drained: DrainedWorker }
  | { type: 'stopped' }
  | { type: 'error'; message: string };
