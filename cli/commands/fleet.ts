import { firstUrl, redisAddressOf, type RedisAddress } from '../../actors/redis/redis-client.js';
import { withRedis } from '../../actors/redis/with-redis.js';
import type { FleetMember } from '../../actors/fleet/read-fleet.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { age, keyValues, printJson, table } from '../format.js';
import { fileConfigSource } from './run.js';

export interface FleetFlags {
  config?: string | undefined;
  redis?: string | undefined;
  json: boolean;
}

/**
 * `weir fleet [node_id] [--redis URL | -c FILE] [--json]`: the nodes that keep a
 * presence on the Redis, read from Redis alone; a node whose presence lapsed is `stale`.
 */
export async function fleetCommand(args: readonly string[], flags: FleetFlags): Promise<number> {
  if (args.length > 1) throw new UsageError('usage: weir fleet [node_id] [--redis URL | -c FILE] [--json]');
  const address = redisOf(flags);
  const { readFleet } = await import('../../actors/fleet/read-fleet.js');
  const members: FleetMember[] = await withRedis(address, readFleet);
  const [nodeId] = args;
  if (nodeId !== undefined) {
    const member = members.find((m) => m.node_id === nodeId);
    if (!member) {
      process.stderr.write(`weir: no node "${nodeId}" in the fleet on this Redis\n`);
      return EXIT.failure;
    }
    if (flags.json) printJson(member);
    else process.stdout.write(describe(member));
    return EXIT.ok;
  }
  if (flags.json) printJson({ nodes: members });
  else process.stdout.write(members.length === 0 ? 'no node on this Redis keeps a presence\n' : overview(members));
  return EXIT.ok;
}

function redisOf(flags: FleetFlags): RedisAddress {
  if (flags.redis) return flags.redis;
  if (!flags.config) throw new UsageError('weir fleet needs --redis URL or -c FILE (a config with redis)');
  const result = fileConfigSource(flags.config, { lenientSecrets: true }).load();
  if (!result.ok) throw new UsageError(`${flags.config}: ${result.problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`);
  if (!result.config.redis) throw new UsageError(`${flags.config} has no redis`);
  const address = redisAddressOf(result.config.redis);
  if (firstUrl(address) === '') throw new UsageError(`${flags.config}: redis cannot be resolved here (its env var or file)`);
  return address;
}

const pendingOf = (m: FleetMember): number => m.presence?.sinks.reduce((n, s) => n + s.pending, 0) ?? 0;
const oldestOf = (m: FleetMember): number | null => {
  const ages = m.presence?.sinks.flatMap((s) => (s.oldest_pending_age_ms === null ? [] : [s.oldest_pending_age_ms])) ?? [];
  return ages.length > 0 ? Math.max(...ages) : null;
};
const ratePerS = (m: FleetMember): number => (m.presence && m.presence.interval_ms > 0 ? (m.presence.flows_opened * 1000) / m.presence.interval_ms : 0);

function overview(members: readonly FleetMember[]): string {
  const now = Date.now();
  const rows = members.map((m) => {
    const p = m.presence;
    const oldest = oldestOf(m);
    return [
      m.node_id,
      m.state === 'up' ? 'up' : `STALE ${age(now - m.last_seen_unix_ms)}`,
      p ? age(now - p.started_at_unix_ms) : '-',
      p?.mode ?? '-',
      p ? String(p.active_flows) : '-',
      p ? ratePerS(m).toFixed(1) : '-',
      p ? String(pendingOf(m)) : '-',
      oldest === null ? '-' : age(oldest),
      p?.control ?? '-',
      p?.version.slice(0, 10) ?? '-',
    ];
  });
  const up = members.filter((m) => m.state === 'up');
  const total = [
    `${members.length} nodes: ${up.length} up, ${members.length - up.length} stale`,
    `flows ${up.reduce((n, m) => n + (m.presence?.active_flows ?? 0), 0)} active, ${up.reduce((n, m) => n + ratePerS(m), 0).toFixed(1)}/s opened`,
    `sinks ${up.reduce((n, m) => n + pendingOf(m), 0)} pending`,
  ].join(' · ');
  return table(['node', 'state', 'uptime', 'mode', 'flows', 'opened/s', 'pending', 'oldest', 'control', 'version'], rows) + total + '\n';
}

function describe(m: FleetMember): string {
  const p = m.presence;
  const now = Date.now();
  const facts: [string, string][] = [
    ['node', m.node_id],
    ['state', m.state === 'up' ? 'up' : `stale (last seen ${age(now - m.last_seen_unix_ms)} ago)`],
  ];
  if (p) {
    facts.push(
      ['version', `${p.version} (build ${p.build})`],
      ['host', `${p.host} pid ${p.pid}`],
      ['uptime', age(now - p.started_at_unix_ms)],
      ['control', p.control ?? '-'],
      ['mode', p.mode],
      ['flows', `${p.active_flows} active, ${ratePerS(m).toFixed(1)}/s opened`],
    );
    for (const s of p.sinks) {
      facts.push([`sink ${s.tag}`, `${s.type}: ${s.pending} pending${s.oldest_pending_age_ms === null ? '' : `, oldest ${age(s.oldest_pending_age_ms)}`}, ${s.total_delivered} delivered, ${s.dead_letters} dead letters`]);
    }
  }
  return keyValues(facts);
}
