import { ConfigSource } from '../config/config-source.js';
import { createLogger } from '../engine/logger.js';
import type { HubMessage, WorkerInit, WorkerMessage } from './worker-messages.js';
import { WorkerProcess } from './worker-process.js';

/**
 * The program of a worker process (node:cluster runs this file). The hub gives the
 * init in WEIR_WORKER. Signals are the hub's to handle: Ctrl+C reaches the whole
 * process group, and a worker that died of it would end its flows as failed instead
 * of letting the hub stop them. A hub that is gone (its channel closed) ends the worker.
 */
function send(message: WorkerMessage, done?: () => void): void {
  if (!process.connected) return void done?.();
  process.send!(message, undefined, {}, () => done?.());
}

function failed(err: unknown): void {
  send({ t: 'start_failed', message: err instanceof Error ? err.message : String(err) }, () => process.exit(1));
}

function main(): void {
  const init = JSON.parse(process.env['WEIR_WORKER'] ?? '') as WorkerInit;
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => {});
  process.on('disconnect', () => process.exit(0));
  const source = new ConfigSource(init.file, init.defaultStateDir, init.document);
  const loaded = source.load();
  if (!loaded.ok) return failed(new Error(loaded.problems.map((p) => `${p.path}: ${p.message}`).join('; ')));
  const config = loaded.config;
  const { log } = createLogger({ level: config.log.level, file: config.log.file, format: init.logFormat });
  const worker = new WorkerProcess(init, source, config, log.child({ worker: init.id }), send);
  // The first message is the routing state; the worker listens once it has it.
  let starting: Promise<void> | null = null;
  process.on('message', (message: HubMessage) => {
    const handled = worker.handle(message);
    starting ??= handled.then(() => worker.start()).catch(failed);
    void Promise.all([starting, handled]).then(([, next]) => {
      if (next === 'exit') process.exit(0);
    }, (err: unknown) => log.error({ err }, 'worker: a message of the node failed'));
  });
  send({ t: 'ready' });
}

main();
