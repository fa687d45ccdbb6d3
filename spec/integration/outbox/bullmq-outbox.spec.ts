import { sinkKeys } from '../../../actors/outbox/bullmq-keys.js';
import { BullmqOutboxStore } from '../../../actors/outbox/bullmq-outbox-store.js';
import { startRedisServer } from '../../support/redis-server.js';
import { bullmqDrain } from './bullmq-drain.js';
import { outboxContract } from '../../unit/outbox/outbox-contract.js';

const redis = startRedisServer();
let nodes = 0;

// Every test is a node of its own on one throwaway redis-server: keys carry the node id.
outboxContract(
  'Redis (BullMQ)',
  async () => {
    const { url } = await redis;
    const nodeId = `node-${++nodes}`;
    return {
      open: (limits) => BullmqOutboxStore.connect({ url, nodeId, limits: limits! }),
      dispose: async () => undefined,
      drain: (ob, settle) => bullmqDrain(url, sinkKeys(nodeId, ob.sink), settle),
    };
  },
  async () => (await redis).close(),
);
