import { firstUrl, redisAddressOf } from '../../actors/redis/redis-client.js';
import { withRedis } from '../../actors/redis/with-redis.js';
import http from 'node:http';
import { within } from '../../actors/base/within.js';
import { listenOn } from '../../actors/net/listen-on.js';
import { createLogger, type LogFormat } from '../../actors/engine/logger.js';
import type { WebhookSinkConfig } from '../../actors/config/schema.js';
import { explainRedisError } from '../../actors/errors/redis-unreachable.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { fileConfigSource } from './run.js';
import { printProblems } from './validate.js';

export interface DeliverFlags {
  config?: string | undefined;
  node?: string | undefined;
  health?: string | undefined;
  logFormat: LogFormat;
}

/** How long a stop waits for the deliveries under way; what is left is delivered again by another worker. */
const STOP_WAIT_MS = 4000;

/**
 * `weir deliver -c FILE [--node ID] [--health HOST:PORT]`: delivers the Redis queues of
 * the config's Webhook sinks (every node's, or one node's) until SIGINT/SIGTERM, with
 * no inbound and no control plane; `--health` serves `GET /health`.
 */
export async function deliverCommand(args: readonly string[], flags: DeliverFlags): Promise<number> {
  if (args.length > 0 || !flags.config) throw new UsageError('usage: weir deliver -c FILE [--node ID] [--health HOST:PORT]');
  const result = fileConfigSource(flags.config).load();
  if (!result.ok) {
    printProblems(flags.config, result.problems);
    return EXIT.failure;
  }
  const { config } = result;
  const sinks = config.event_sinks.filter((s): s is WebhookSinkConfig => s.type === 'webhook');
  if (!config.redis) throw new UsageError(`${flags.config} has no redis: weir deliver delivers Redis sink queues`);
  if (sinks.length === 0) throw new UsageError(`${flags.config} has no Webhook sink to deliver`);
  const address = redisAddressOf(config.redis);
  const { log } = createLogger({ level: config.log.level, file: config.log.file, format: flags.logFormat });
  const { ExternalDelivery } = await import('../../actors/webhook/external-delivery.js');
  // Asked first on a connection that fails rather than waits: a cluster whose ready check fails would hold the workers' client for ever.
  await withRedis(address, (redis) => redis.ping());
  const delivery = new ExternalDelivery({ redis: address, sinks, nodeId: flags.node ?? null, log });
  const health = flags.health ? await serveHealth(flags.health, () => delivery.queues) : null;
  try {
    await delivery.start();
  } catch (err) {
    health?.close();
    await within(delivery.close(), STOP_WAIT_MS);
    throw await explainRedisError(err, firstUrl(address));
  }
  log.info({ sinks: sinks.map((s) => s.tag), node: flags.node ?? '*' }, 'weir deliver started');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  health?.close();
  await within(delivery.close(), STOP_WAIT_MS);
  log.info('weir deliver stopped');
  return EXIT.ok;
}

async function serveHealth(listen: string, queues: () => string[]): Promise<http.Server> {
  const at = /^(.*):(\d+)$/.exec(listen);
  if (!at) throw new UsageError(`--health takes HOST:PORT, not ${JSON.stringify(listen)}`);
  const server = http.createServer((req, res) => {
    const ok = req.method === 'GET' && req.url === '/health';
    res.writeHead(ok ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(ok ? { status: 'ok', queues: queues() } : { error: 'not found' }));
  });
  await listenOn(server, { host: at[1]!.replace(/^\[(.*)\]$/, '$1'), port: Number(at[2]) }, '--health');
  return server;
}
