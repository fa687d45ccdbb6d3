import fs from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connectRedis, firstUrl, redisAddressOf, type RedisAddress } from '../../actors/redis/redis-client.js';
import { refusalOf } from '../../actors/redis/redis-refusal.js';
import { parseListen, API_KEY_MIN_LENGTH } from '../../actors/config/schema-control.js';
import { Secret } from '../../actors/config/secret.js';
import { createLogger } from '../../actors/engine/logger.js';
import { authority } from '../../actors/net/authority.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { fileConfigSource } from './run.js';
import { printProblems } from './validate.js';

export interface DashboardFlags {
  config?: string | undefined;
  redis?: string | undefined;
  listen?: string | undefined;
  apiKeyFile?: string | undefined;
}

const USAGE = 'usage: weir dashboard [--redis URL | -c FILE] [--listen HOST:PORT] [--api-key-file PATH]';
const DEFAULT_LISTEN = '127.0.0.1:9191';
/** How often the Redis is searched for sink queues: a node that starts shows within this. */
const RESCAN_MS = 10_000;

/**
 * `weir dashboard`: bull-board for every node's sink queues on a Redis, named
 * `<node>/<tag>`, behind an API key, until SIGINT/SIGTERM. The queues are read from
 * the queue index (sink-queue-nodes.ts), again every RESCAN_MS, so nodes that come
 * and go appear and leave.
 */
export async function dashboardCommand(args: readonly string[], flags: DashboardFlags): Promise<number> {
  if (args.length > 0) throw new UsageError(USAGE);
  const listen = parseListen(flags.listen ?? DEFAULT_LISTEN);
  if (!listen) throw new UsageError(`--listen takes HOST:PORT (IPv6 as [addr]:PORT), not ${JSON.stringify(flags.listen)}`);
  const source = loadSource(flags);
  if (!source) return EXIT.failure;
  const apiKey = apiKeyOf(flags, source.configKey);
  const { log } = createLogger(source.log);
  const [{ createBoard }, { fleetDashboardApp, FLEET_DASHBOARD_PATH }, { sinkQueues }] = await Promise.all([
    import('../../http/bull-board.js'),
    import('../../http/fleet-dashboard.js'),
    import('../../actors/outbox/sink-queue-nodes.js'),
  ]);
  const board = await createBoard({ redis: source.redis, title: 'weir fleet', mountPath: FLEET_DASHBOARD_PATH, byNode: true });
  const redis = connectRedis(source.redis, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);

  let shown: string | null = null;
  let failing = false;
  const rescan = async (): Promise<void> => {
    try {
      const queues = await sinkQueues(redis);
      await board.show(queues);
      const names = queues.map((q) => `${q.nodeId}/${q.tag}`);
      if (failing || names.join('\n') !== shown) log.info({ queues: names }, 'weir dashboard shows these sink queues');
      shown = names.join('\n');
      failing = false;
    } catch (err) {
      // Logged once per outage; the board keeps the queues it last found.
      const why = refusalOf(redis, err);
      if (!failing) log.warn({ err: why instanceof Error ? why.message : String(why) }, 'weir dashboard cannot search Redis for sink queues');
      failing = true;
    }
  };
  // One search at a time: at each (re)connection to Redis and every RESCAN_MS.
  let searching = Promise.resolve();
  const search = (): void => void (searching = searching.then(rescan));
  redis.on('ready', search);
  const timer = setInterval(search, RESCAN_MS);

  const server = await serve(fleetDashboardApp(board, apiKey, log), listen);
  // The bound address: with port 0 in --listen, the one the kernel gave.
  const bound = server.address() as AddressInfo;
  log.info({ listen: authority({ host: bound.address, port: bound.port }) }, 'weir dashboard started');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  clearInterval(timer);
  redis.off('ready', search);
  server.close();
  server.closeAllConnections();
  await searching;
  await board.close();
  redis.disconnect();
  log.info('weir dashboard stopped');
  return EXIT.ok;
}

interface Source {
  redis: RedisAddress;
  configKey: Secret | null;
  log: { level: string; file?: string | undefined };
}

/**
 * The Redis (and, from a config, its API key and log settings) of --redis or -c; null
 * after printing a config's problems. The config is read as an offline command reads
 * it: the secrets the dashboard does not use (tokens, passwords) need not resolve here.
 */
function loadSource(flags: DashboardFlags): Source | null {
  if (flags.redis && flags.config) throw new UsageError(`${USAGE} (--redis or -c, not both)`);
  if (flags.redis) return { redis: flags.redis, configKey: null, log: { level: 'info' } };
  if (!flags.config) throw new UsageError(`${USAGE} (it needs --redis URL or -c FILE, a config with redis)`);
  const result = fileConfigSource(flags.config, { lenientSecrets: true }).load();
  if (!result.ok) {
    printProblems(flags.config, result.problems);
    return null;
  }
  const { config } = result;
  if (!config.redis) throw new UsageError(`${flags.config} has no redis`);
  const redis = redisAddressOf(config.redis);
  if (firstUrl(redis) === '') throw new UsageError(`${flags.config}: redis cannot be resolved here (its env var or file)`);
  const configKey = config.control.api_key.reveal() === '' ? null : config.control.api_key;
  return { redis, configKey, log: { level: config.log.level, file: config.log.file } };
}

/** --api-key-file, else WEIR_API_KEY, else the config's control.api_key: the dashboard never runs open. */
function apiKeyOf(flags: DashboardFlags, configKey: Secret | null): Secret {
  let key: string | undefined = configKey?.reveal();
  if (flags.apiKeyFile) {
    try {
      key = fs.readFileSync(flags.apiKeyFile, 'utf8').trim();
    } catch (err) {
      throw new UsageError(`--api-key-file ${flags.apiKeyFile} cannot be read: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
  } else if (process.env['WEIR_API_KEY']) {
    key = process.env['WEIR_API_KEY'];
  }
  if (!key) throw new UsageError('weir dashboard needs an API key: --api-key-file PATH, the env var WEIR_API_KEY, or -c FILE (its control.api_key)');
  if (key.length < API_KEY_MIN_LENGTH) throw new UsageError(`the API key must have at least ${API_KEY_MIN_LENGTH} characters`);
  return new Secret(key);
}

function serve(app: import('express').Express, at: { host: string; port: number }): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(at.port, at.host);
    server.once('error', (err) => reject(new Error(`cannot listen on ${at.host}:${at.port}: ${err.message}`)));
    server.once('listening', () => resolve(server));
  });
}
