import type { ConnectorState } from '../../actors/contracts/sink.js';
import { FLEET_API_KEY, FLEET_SINK } from './fleet-config.js';
import type { FleetNode } from './fleet-nodes.js';

/**
 * The replay gaps the node's Webhook sink reports (GET /api/v1/sinks), or null while
 * its control plane does not answer with the sink.
 */
export async function reportedGaps(node: FleetNode): Promise<NonNullable<ConnectorState['gaps']> | null> {
  try {
    // Bounded: settleAccounts waits for each read, and a node that hangs must not hold it past its own bound.
    const res = await fetch(`http://${node.control}/api/v1/sinks`, { headers: { authorization: `Bearer ${FLEET_API_KEY}` }, signal: AbortSignal.timeout(5000) });
    if (res.status !== 200) return null;
    const sink = ((await res.json()) as { sinks: ConnectorState[] }).sinks.find((s) => s.tag === FLEET_SINK);
    return sink?.gaps ?? null;
  } catch {
    return null;
  }
}
