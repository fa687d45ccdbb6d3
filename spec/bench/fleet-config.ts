import path from 'node:path';
import type { RedisAddress } from '../../actors/redis/redis-client.js';
import { e2eConfig } from '../support/node-config.js';

/** The Webhook sink every node of the simulation has, and `weir deliver` delivers. */
export const FLEET_SINK = 'hook';
export const FLEET_TOKEN = 'fleet-sim-token-0123456789';
/** The control plane's API key of every node of the simulation. */
export const FLEET_API_KEY = 'fleet-sim-api-key-0123456789';

export interface FleetNodeParts {
  readonly nodeId: string;
  readonly stateDir: string;
  readonly socksPort: number;
  readonly controlPort: number;
  readonly redis: RedisAddress;
  readonly receiverUrl: string;
}

/** The config's `redis`: a standalone server's `url`, or a cluster's seeds. */
function redisConfig(address: RedisAddress): Record<string, unknown> {
  if (typeof address === 'string') return { url: address };
  return 'cluster' in address ? { cluster: address.cluster } : { url: address.url };
}

/** The node's JSONL archive of its flow.completed events: what it published, for the check after a kill -9. */
export function archivePath(stateDir: string): string {
  return path.join(stateDir, 'completed.jsonl');
}

/**
 * The sink's retry backoff is short, so a backlog left while the receiver refused is
 * delivered within seconds of its return.
 */
function webhookSink(receiverUrl: string): Record<string, unknown> {
  return {
    type: 'webhook',
    tag: FLEET_SINK,
    url: receiverUrl,
    token: FLEET_TOKEN,
    events: ['flow.completed'],
    delivery: 'external',
    backoff_base_ms: 200,
    backoff_max_ms: 2000,
  };
}

/** A small fleet node: one SOCKS5 inbound, direct outbound, the JSONL archive and the external Webhook sink. */
export function fleetNodeConfig(p: FleetNodeParts): Record<string, unknown> {
  const base = e2eConfig({ stateDir: p.stateDir, inbounds: [{ type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port: p.socksPort }] });
  return {
    ...base,
    node: { id: p.nodeId, state_dir: p.stateDir },
    log: { level: 'warn' },
    control: { listen: `127.0.0.1:${p.controlPort}`, api_key: FLEET_API_KEY },
    redis: redisConfig(p.redis),
    event_sinks: [{ type: 'jsonl', tag: 'archive', path: archivePath(p.stateDir), events: ['flow.completed'] }, webhookSink(p.receiverUrl)],
  };
}

/** The config of the `weir deliver` workers: the same sink and Redis, no inbound. */
export function deliverConfig(stateDir: string, redis: RedisAddress, receiverUrl: string): Record<string, unknown> {
  return {
    node: { id: 'fleet-deliver', state_dir: stateDir },
    log: { level: 'warn' },
    control: { listen: '127.0.0.1:0', api_key: FLEET_API_KEY },
    outbounds: [{ type: 'direct', tag: 'direct' }],
    route: { final: 'direct' },
    redis: redisConfig(redis),
    event_sinks: [webhookSink(receiverUrl)],
  };
}
