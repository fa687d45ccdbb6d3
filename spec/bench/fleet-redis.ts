import { Redis } from 'ioredis';
import type { FleetMember } from '../../actors/fleet/read-fleet.js';
import { runWeir } from '../support/weir-bin.js';

/** One field of an INFO section, as a number. */
export function infoField(info: string, field: string): number {
  const line = info.split('\r\n').find((l) => l.startsWith(`${field}:`));
  if (line === undefined) throw new Error(`INFO has no ${field}`);
  return Number(line.slice(field.length + 1));
}

/** The simulation's own view of its Redis: the figures INFO gives. */
export interface RedisProbe {
  usedMemory(): Promise<number>;
  totalCommands(): Promise<number>;
  close(): void;
}

export function redisProbe(url: string): RedisProbe {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  return {
    usedMemory: async () => infoField(await redis.info('memory'), 'used_memory'),
    totalCommands: async () => infoField(await redis.info('stats'), 'total_commands_processed'),
    close: () => redis.disconnect(),
  };
}

/** `weir fleet --json --redis URL`: the fleet as an operator's script sees it. */
export async function fleetJson(redisUrl: string): Promise<FleetMember[]> {
  const res = await runWeir(['fleet', '--json', '--redis', redisUrl]);
  if (res.code !== 0) throw new Error(`weir fleet --json exited ${res.code}: ${res.stderr.trim()}`);
  return (JSON.parse(res.stdout) as { nodes: FleetMember[] }).nodes;
}

/** `weir fleet --redis URL`: the table an operator reads. */
export async function fleetTable(redisUrl: string): Promise<string> {
  const res = await runWeir(['fleet', '--redis', redisUrl]);
  if (res.code !== 0) throw new Error(`weir fleet exited ${res.code}: ${res.stderr.trim()}`);
  return res.stdout.trimEnd();
}
