import fs from 'node:fs';
import type { SinkView } from '../support/webhook-node.js';
import { startNode, type WeirNode } from '../support/start-node.js';
import { waitFor } from '../support/wait-for.js';
import { SOAK_API_KEY, SOAK_SINK, soakNodeConfig, type SoakNodeParts } from './soak-config.js';

/** The node under soak: restarted on the same state dir and ports after each kill -9. */
export interface SoakNode {
  current(): WeirNode;
  /** Starts the node (again) on the config of `parts`, once its control plane answers. */
  boot(): Promise<void>;
  kill9(): Promise<void>;
  /** Rewrites the config file with `batchSize` and sends SIGHUP: the hot reload replaces the Webhook sink. */
  reload(batchSize: number): void;
  /** kill -9 of one worker process (node.workers above 1); resolves once the node lists a new one in its place. */
  killWorker(): Promise<void>;
  /** The Webhook sink as GET /api/v1/sinks shows it; undefined while the node does not answer. */
  sink(): Promise<SinkView | undefined>;
  stop(): Promise<number | null>;
}

export function soakNode(initial: SoakNodeParts): SoakNode {
  let parts = initial;
  let node: WeirNode | null = null;
  const base = `http://127.0.0.1:${parts.controlPort}/api/v1`;
  const sink = async (): Promise<SinkView | undefined> => {
    try {
      const res = await fetch(`${base}/sinks`, { headers: { authorization: `Bearer ${SOAK_API_KEY}` }, signal: AbortSignal.timeout(5000) });
      if (res.status !== 200) return undefined;
      return ((await res.json()) as { sinks: SinkView[] }).sinks.find((s) => s.tag === SOAK_SINK);
    } catch {
      return undefined;
    }
  };
  const running = (): WeirNode => {
    if (node === null) throw new Error('the soak node is not running');
    return node;
  };
  return {
    current: running,
    boot: async () => {
      node = await startNode(soakNodeConfig(parts));
      await waitFor(sink, 20_000, 'the control plane and the Webhook sink', 100);
    },
    kill9: async () => {
      await running().kill9();
    },
    reload: (batchSize) => {
      parts = { ...parts, batchSize };
      const n = running();
      fs.writeFileSync(n.configPath, JSON.stringify(soakNodeConfig(parts), null, 2));
      process.kill(n.pid, 'SIGHUP');
    },
    sink,
    killWorker: async () => {
      const pids = async (): Promise<number[]> => {
        const res = await fetch(`${base}/runtime`, { headers: { authorization: `Bearer ${SOAK_API_KEY}` }, signal: AbortSignal.timeout(5000) });
        return ((await res.json()) as { workers: { pid: number }[] | null }).workers?.map((w) => w.pid) ?? [];
      };
      const before = await pids();
      const victim = before[0];
      if (victim === undefined) throw new Error('the soak node lists no worker');
      process.kill(victim, 'SIGKILL');
      await waitFor(async () => {
        const now = await pids();
        return now.length === before.length && !now.includes(victim);
      }, 30_000, 'a new worker in place of the killed one', 100);
    },
    stop: () => running().stop(),
  };
}
