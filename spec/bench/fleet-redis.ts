import { Redis } from 'ioredis';
import type { FleetMember } from '../../actors/fleet/read-fleet.js';
import { runWeir } from '../support/weir-bin.js';

/** One field of an INFO section, as a number. */
export function infoField(info: string, field: string): number {
  const line = info.split('\r\n').find((l) => l.startsWith(`${field}:`));
  if (line === undefined) throw new Error(`INFO has no ${field}`);
  return Number(line.slice(field.length + 1));
}

/** Calls per command in INFO commandstats (commands that scripts run included). */
export function commandCalls(info: string): Record<string, number> {
  return Object.fromEntries([...info.matchAll(/cmdstat_([^:]+):calls=(\d+)/g)].map((m) => [m[1]!, Number(m[2])]));
}

/** The simulation's own view of its Redis: the figures INFO gives. */
export interface RedisProbe {
  usedMemory(): Promise<number>;
  /** Commands Redis ran, from INFO commandstats, less the INFO calls of the probe itself. */
  totalCommands(): Promise<number>;
  close(): void;
}

export function redisProbe(url: string): RedisProbe {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  return {
    usedMemory: async () => infoField(await redis.info('memory'), 'used_memory'),
    totalCommands: async () => {
      const calls = commandCalls(await redis.info('commandstats'));
      return Object.entries(calls).reduce((n, [name, c]) => n + (name === 'info' ? 0 : c), 0);
    },
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
