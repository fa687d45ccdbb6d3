// Loaded into the node under test with `node --import` (NODE_OPTIONS) by flow-alloc.ts.
// SIGUSR2 starts and stops a CPU profile, then starts and stops a heap profile that
// samples every allocation (a 1-byte interval) and keeps the samples of objects the GC
// has collected: each sample is one object, so it counts what was allocated, not what
// survived. Both are written to WEIR_PROFILE_DIR.
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';

const dir = process.env.WEIR_PROFILE_DIR;
/** Bytes between heap samples on average: 1 samples every object, so no sample is scaled up. */
const SAMPLING_INTERVAL = 1;

if (dir) {
  const session = new Session();
  session.connect();
  // Each SIGUSR2 takes the next step: the CPU profile, then the heap profile, apart so
  // the heap sampler's cost stays out of the CPU profile.
  const steps = [
    async (): Promise<void> => {
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 100 });
      await session.post('Profiler.start');
    },
    async (): Promise<void> => {
      const { profile } = await session.post('Profiler.stop');
      fs.writeFileSync(path.join(dir, 'node.cpuprofile'), JSON.stringify(profile));
    },
    async (): Promise<void> => {
      await session.post('HeapProfiler.enable');
      await session.post('HeapProfiler.startSampling', {
        samplingInterval: SAMPLING_INTERVAL,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      } as never);
    },
    async (): Promise<void> => {
      const { profile } = await session.post('HeapProfiler.stopSampling');
      fs.writeFileSync(path.join(dir, 'node.heapprofile'), JSON.stringify(profile));
    },
  ];
  let step = 0;
  process.on('SIGUSR2', () => {
    const run = steps[step++];
    void run?.()
      .then(() => fs.writeFileSync(path.join(dir, `step-${step}`), ''))
      .catch((error: unknown) => fs.writeFileSync(path.join(dir, 'error'), String(error)));
  });
}
