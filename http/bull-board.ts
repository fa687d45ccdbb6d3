import type { RedisAddress } from '../actors/redis/redis-client.js';
import type { RequestHandler } from 'express';
import type { SinkQueue } from '../actors/outbox/sink-queue-nodes.js';

export interface Board {
  router: RequestHandler;
  /** Shows these sink queues, and no others. */
  show(queues: readonly SinkQueue[]): Promise<void>;
  close(): Promise<void>;
}

export interface BoardOptions {
  redis: RedisAddress;
  title: string;
  mountPath: string;
  /** Names each queue `<node>/<tag>` (bull-board groups them by node); else `<tag>`. */
  byNode: boolean;
}

/**
 * bull-board over weir's sink queues, read-only: the board shows what the connectors
 * lease and changes nothing. Every queue shares one Redis connection, so a board of
 * many nodes' queues holds one connection, not one per queue. bull-board and BullMQ
 * are loaded when the first board is made.
 */
export async function createBoard(opts: BoardOptions): Promise<Board> {
  const [{ createBullBoard }, { BullMQAdapter }, { ExpressAdapter }, { Queue }, { connectRedis }, { sinkKeys }] = await Promise.all([
    import('@bull-board/api'),
    import('@bull-board/api/bullMQAdapter'),
    import('@bull-board/express'),
    import('bullmq'),
    import('../actors/redis/redis-client.js'),
    import('../actors/outbox/bullmq-keys.js'),
  ]);
  const connection = connectRedis(opts.redis, { enableOfflineQueue: false, maxRetriesPerRequest: null });
  connection.on('error', () => undefined);
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(opts.mountPath);
  const board = createBullBoard({ queues: [], serverAdapter, options: { uiConfig: { boardTitle: opts.title } } });
  type Shown = { queue: { close(): Promise<void> }; adapter: InstanceType<typeof BullMQAdapter> };
  let shown = new Map<string, Shown>();
  const closeAll = (queues: Iterable<Shown>): Promise<unknown> =>
    Promise.all([...queues].map((q) => q.queue.close().catch(() => undefined)));
  return {
    router: serverAdapter.getRouter() as RequestHandler,
    async show(queues) {
      const next = new Map<string, Shown>();
      for (const { nodeId, tag } of queues) {
        const keys = sinkKeys(nodeId, tag);
        const old = shown.get(keys.base);
        if (old) {
          next.set(keys.base, old);
          continue;
        }
        const queue = new Queue(keys.queue, { connection, prefix: keys.prefix });
        queue.on('error', () => undefined);
        const adapter = new BullMQAdapter(queue, {
          readOnlyMode: true,
          description: opts.byNode ? `sink ${tag} of node ${nodeId}` : `sink ${tag}`,
          ...(opts.byNode ? { prefix: `${nodeId}/`, delimiter: '/' } : {}),
        });
        next.set(keys.base, { queue, adapter });
      }
      const gone = [...shown].filter(([base]) => !next.has(base)).map(([, q]) => q);
      shown = next;
      board.replaceQueues([...next.values()].map((q) => q.adapter));
      await closeAll(gone);
    },
    async close() {
      await closeAll(shown.values());
      shown = new Map();
      connection.disconnect();
    },
  };
}
