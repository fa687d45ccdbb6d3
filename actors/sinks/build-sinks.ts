import type { Observable } from 'rxjs';
import type { Envelope } from '../../streams/contract.js';
import type { SinkConfig } from '../config/schema.js';
import type { Sink } from '../contracts/sink.js';
import { JsonlSink } from './jsonl-sink.js';

/** Builds the configured sinks; Webhook sinks arrive with the outbox. */
export function buildSinks(configs: readonly SinkConfig[], nodeId: string, events$: Observable<Envelope>): Sink[] {
  return configs.flatMap((c) => (c.type === 'jsonl' ? [new JsonlSink(c, nodeId, events$)] : []));
}
