import type { ConfigProblem } from './problems.js';
import type { WeirConfig } from './schema.js';

/** External delivery is by workers on the node's Redis: a node without one has no queue for them. */
export function checkSinkDelivery(config: WeirConfig): ConfigProblem[] {
  if (config.redis) return [];
  return config.event_sinks.flatMap((sink, i): ConfigProblem[] =>
    sink.type === 'webhook' && sink.delivery === 'external'
      ? [{ path: `event_sinks[${i}].delivery`, message: '"external" needs `redis`: `weir deliver` workers deliver from the node\'s Redis queues' }]
      : [],
  );
}
