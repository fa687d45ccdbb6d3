import type { SinkConfig } from '../config/schema.js';
import type { ConnectorState, Sink } from '../contracts/sink.js';
import { WebhookSink } from '../webhook/webhook-sink.js';
import { readConnectorState } from '../sinks/connector-state-file.js';
import { JsonlSink } from '../sinks/jsonl-sink.js';
import type { SinkDeps } from '../sinks/sink-deps.js';


/**
 * Builds one sink per `event_sinks[]` entry, keyed on its `type`. `previous` is the
 * state of the running sink of the tag it replaces: a JSONL sink's counters go on from
 * it (the saved file may be a tick behind), a Webhook sink's from its outbox.
 */
export function buildSink(config: SinkConfig, deps: SinkDeps, previous?: ConnectorState): Sink {
  switch (config.type) {
    case 'jsonl':
      return new JsonlSink(config, deps.nodeId, deps.bus, previous?.type === 'jsonl' ? previous : savedState(deps.stateDir, config.tag, 'jsonl'), deps.log);
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
