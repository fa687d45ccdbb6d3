import type { Envelope } from '../../streams/contract.js';

/** An envelope as every sink delivers it: JSON, with the node id as source_id (null on live consumers). */
export function sinkJson(envelope: Envelope, nodeId: string): string {
  return JSON.stringify({ ...envelope, source_id: nodeId });
}
