import fs from 'node:fs';
import path from 'node:path';
import type { RedisAddress } from '../../actors/redis/redis-client.js';
import { freePorts } from '../support/free-port.js';
import { readJsonl } from '../support/jsonl.js';
import { startNode, type WeirNode } from '../support/start-node.js';
import type { ArchivedEvent } from './fleet-accounting.js';
import { archivePath, fleetNodeConfig } from './fleet-config.js';
import { runLoad } from './load-runner.js';
import type { Origins } from './origins.js';

export interface FleetNode {
  readonly id: string;
  readonly node: WeirNode;
  readonly socksPort: number;
  /** The control plane's address, `127.0.0.1:<port>`. */
  readonly control: string;
  readonly archive: string;
}

/** Starts `count` nodes `fleet-1`… on the fleet's Redis, each in its own dir under `dir`; all or none. */
export async function startFleetNodes(count: number, dir: string, redis: RedisAddress, receiverUrl: string): Promise<FleetNode[]> {
  const started = await Promise.allSettled(
    Array.from({ length: count }, async (_, i): Promise<FleetNode> => {
      const id = `fleet-${i + 1}`;
      const stateDir = path.join(dir, id);
      fs.mkdirSync(stateDir, { recursive: true });
      const [socksPort, controlPort] = await freePorts(2);
      const node = await startNode(fleetNodeConfig({ nodeId: id, stateDir, socksPort: socksPort!, controlPort: controlPort!, redis, receiverUrl }));
      return { id, node, socksPort: socksPort!, control: `127.0.0.1:${controlPort!}`, archive: archivePath(stateDir) };
    }),
  );
  const nodes = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) {
    await stopFleetNodes(nodes);
    throw failed.reason;
  }
  return nodes;
}

export async function stopFleetNodes(nodes: readonly FleetNode[]): Promise<void> {
  await Promise.all(nodes.map((n) => n.node.stop()));
}

/** Starts a node that was killed again from its config: the same node id, ports and state dir. */
export async function restartFleetNode(n: FleetNode): Promise<FleetNode> {
  const config = JSON.parse(fs.readFileSync(n.node.configPath, 'utf8')) as Record<string, unknown>;
  return { ...n, node: await startNode(config) };
}

/** The flow.completed events the node archived. */
export function archivedEvents(node: FleetNode): ArchivedEvent[] {
  return readJsonl(node.archive).map((e) => ({ event_id: e.event_id, sequence: e.sequence }));
}

export function archivedIds(node: FleetNode): string[] {
  return archivedEvents(node).map((e) => e.event_id);
}

export interface SpreadLoad {
  readonly completed: number;
  readonly failed: number;
  /** Short connections per second over all nodes. */
  readonly perSecond: number;
}

/**
 * One native load client per node in `rate` mode through its SOCKS5 inbound to the
 * origin's echo-once port, all at once for `ms`: every cycle is one flow, so one
 * flow.completed.
 */
export async function spreadLoad(binary: string, origins: Origins, nodes: readonly FleetNode[], concurrency: number, ms: number): Promise<SpreadLoad> {
  const results = await Promise.all(
    nodes.map((n) =>
      runLoad(binary, { kind: 'rate', port: n.socksPort, proto: 'socks5', target: { host: '127.0.0.1', port: origins.echoOncePort }, concurrency, ms }, ms + 30_000),
    ),
  );
  const completed = results.reduce((sum, r) => sum + r.completed, 0);
  const failed = results.reduce((sum, r) => sum + r.failed, 0);
  const seconds = Math.max(...results.map((r) => r.seconds));
  return { completed, failed, perSecond: seconds > 0 ? completed / seconds : 0 };
}
