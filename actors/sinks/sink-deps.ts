import type { RedisAddress } from '../redis/redis-client.js';
import type { Logger } from 'pino';
import type { BusEvent } from '../../streams/contract.js';
import type { EventBus } from '../../streams/event-bus.js';
import type { OutboxOpenOptions, SinkOutbox } from '../contracts/outbox.js';
import type { StopDeadline } from '../base/stop-deadline.js';
import type { DeliveryAcks } from './delivery-acks.js';

/** What the engine hands every sink it builds (build-sinks.ts). */
export interface SinkDeps {
  nodeId: string;
  /** Where the node saves its connector state (connector-state-file.ts). */
  stateDir: string;
  bus: EventBus;
  openOutbox: (sink: string, opts?: OutboxOpenOptions) => Promise<SinkOutbox>;
  /** The node's Redis, whose sink queues BullMQ workers deliver; null without `redis`. */
  redis: { url: RedisAddress; onError: (err: Error) => void } | null;
  publish: (event: BusEvent) => void;
  /** The node's stop deadline: what a sink's stop waits for on Redis or a receiver ends by it. */
  deadline: StopDeadline;
  /** The node's logger: a sink logs its delivery trouble there. */
  log: Logger;
  /** Where a sink tells of each request its receiver acknowledged. */
  acks: DeliveryAcks;
}
