import type { Observable } from 'rxjs';
import type { BusEvent } from '../../streams/contract.js';
import type { PublishedEvent } from '../../streams/published-event.js';
import type { SinkConfig } from '../config/schema.js';
import type { Outbox } from '../contracts/outbox.js';
import type { Sink } from '../contracts/sink.js';
import { WebhookSink } from '../webhook/webhook-sink.js';
import { JsonlSink } from './jsonl-sink.js';

export interface SinkDeps {
  nodeId: string;
  events$: Observable<PublishedEvent>;
  openOutbox: (sink: string) => Promise<Outbox>;
  publish: (event: BusEvent) => void;
}

/** Builds one sink per `event_sinks[]` entry, keyed on its `type`. */
export function buildSink(config: SinkConfig, deps: SinkDeps): Sink {
  switch (config.type) {
    case 'jsonl':
      return new JsonlSink(config, deps.nodeId, deps.events$);
    case 'webhook':
      return new WebhookSink(config, deps);
  }
}
