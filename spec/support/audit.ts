import * as assert from 'uvu/assert';
import { assertEnvelopes, assertEveryFlowComplete } from './flow-lifecycle.js';
import { readJsonl, type JsonEnvelope } from './jsonl.js';
import { E2E_NODE_ID } from './node-config.js';
import type { WeirNode } from './start-node.js';

/**
 * Stops the node with SIGTERM (exit code 0) and checks its whole sink file: the
 * envelope rules, and one flow.started and one flow.completed for every flow.
 */
export async function stopAndAudit(node: WeirNode, eventsFile: string): Promise<JsonEnvelope[]> {
  assert.is(await node.stop(), 0, 'weir exits 0 on SIGTERM');
  const events = readJsonl(eventsFile);
  assertEnvelopes(events, E2E_NODE_ID);
  assertEveryFlowComplete(events);
  return events;
}
