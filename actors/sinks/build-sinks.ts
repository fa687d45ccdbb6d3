import type { Logger } from 'pino';
import type { BusEvent } from '../../streams/contract.js';
import type { EventBus } from '../../streams/event-bus.js';
import type { SinkConfig } from '../config/schema.js';
import type { LeasedOutbox } from '../contracts/outbox.js';
import type { ConnectorState, Sink } from '../contracts/sink.js';
import type { StopDeadline } from '../engine/stop-deadline.js';
import { WebhookSink } from '../webhook/webhook-sink.js';
import { readConnectorState } from './connector-state-file.js';
import { JsonlSink } from './jsonl-sink.js';

export interface SinkDeps {
  nodeId: string;
  /** Where the node saves its connector state (connector-state-file.ts). */
  stateDir: string;
  bus: EventBus;
  openOutbox: (sink: string) => Promise<LeasedOutbox>;
  /** The node's Redis, whose sink queues BullMQ workers deliver; null without `redis`. */
  redis: { url: string; onError: (err: Error) => void } | null;
  publish: (event: BusEvent) => void;
  /** The node's stop deadline: what a sink's stop waits for on Redis or a receiver ends by it. */
  deadline: StopDeadline;
  /** The node's logger: a sink logs its delivery trouble there. */
  log: Logger;
}

/**
 * Builds one sink per `event_sinks[]` entry, keyed on its `type`. `previous` is the
 * state of the running sink of the tag it replaces: a JSONL sink's counters go on from
 * it (the saved file may be a tick behind), a Webhook sink's from its outbox.
 */
export function buildSink(config: SinkConfig, deps: SinkDeps, previous?: ConnectorState): Sink {
  switch (config.type) {
    case 'jsonl':
      return new JsonlSink(config, deps.nodeId, deps.bus, previous?.type === 'jsonl' ? previous : savedState(deps.stateDir, config.tag, 'jsonl'));
    case 'webhook':
      return new WebhookSink(config, deps);
  }
}

/** The state the node last saved of the sink `tag` of `type`; none when unknown or unreadable. */
function savedState(stateDir: string, tag: string, type: string): ConnectorState | undefined {
  try {
    return readConnectorState(stateDir)?.find((s) => s.tag === tag && s.type === type);
  } catch {
    return undefined;
  }
}
