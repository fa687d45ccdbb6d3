import type { BusEvent } from '../../streams/contract.js';
import type { EventBus } from '../../streams/event-bus.js';
import type { SinkConfig } from '../config/schema.js';
import type { Outbox } from '../contracts/outbox.js';
import type { Sink } from '../contracts/sink.js';
import { WebhookSink } from '../webhook/webhook-sink.js';
import { JsonlSink } from './jsonl-sink.js';

export interface SinkDeps {
  nodeId: string;
  bus: EventBus;
  openOutbox: (sink: string) => Promise<Outbox>;
  publish: (event: BusEvent) => void;
}

/** Builds one sink per `event_sinks[]` entry, keyed on its `type`. */
export function buildSink(config: SinkConfig, deps: SinkDeps): Sink {
  switch (config.type) {
    case 'jsonl':
      return new JsonlSink(config, deps.nodeId, deps.bus);
    case 'webhook':
      return new WebhookSink(config, deps);
  }
}
