import type { IdleHeld, Job, JobResult } from './load-jobs.js';

/** Parent to load client. `release` ends an idle job once its memory has been read. */
export type ToLoad = { type: 'job'; job: Job } | { type: 'release' };

/** Load client to parent. `held` means the idle tunnels are open now. */
export type FromLoad =
  | { type: 'held'; state: IdleHeld }
  | { type: 'result'; result: JobResult }
  | { type: 'error'; message: string };
