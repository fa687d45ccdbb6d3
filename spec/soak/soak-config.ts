import path from 'node:path';
import { e2eConfig, eventsPath } from '../support/node-config.js';

export const SOAK_SINK = 'hook';
export const SOAK_TOKEN = 'soak-webhook-token-5e1f09a2';
export const SOAK_API_KEY = 'soak-api-key-7b3d2c1e';
/** The one account of the authenticated SOCKS5 inbound, as `user:password`. */
export const SOAK_ACCOUNT = 'soak:soak-pw-8c1d4f';
/** The sink's attempt timeout; the receiver's `timeouts` phase answers later than this. */
export const SINK_TIMEOUT_MS = 2000;

export interface SoakNodeParts {
  readonly stateDir: string;
  readonly socksPort: number;
  readonly httpPort: number;
  readonly controlPort: number;
  readonly redisUrl: string;
  readonly receiverUrl: string;
  /** The Webhook sink's batch_size: the reload in the middle of the soak changes it, which replaces the sink. */
  readonly batchSize: number;
  /** node.workers. */
  readonly workers: number;
}

/** Rotated archive files kept (64 MiB each): more than a long soak writes. */
const ARCHIVE_FILES_KEPT = 1000;

/** The node's JSONL archive of every event type. */
export function archivePath(stateDir: string): string {
  return eventsPath(stateDir);
}

/**
 * The soak's node: SOCKS5 with a user/password account and HTTP CONNECT inbounds, a
 * Redis outbox, the JSONL archive of every event and a Webhook sink of flow.completed
 * with short retries, so a backlog drains within seconds of the receiver's return.
 */
export function soakNodeConfig(p: SoakNodeParts): Record<string, unknown> {
  const [user, password] = SOAK_ACCOUNT.split(':');
  const base = e2eConfig({
    stateDir: p.stateDir,
    inbounds: [
      { type: 'socks', tag: 'socks-auth', listen: '127.0.0.1', port: p.socksPort, users: [{ username: user, password }] },
      { type: 'http', tag: 'http-in', listen: '127.0.0.1', port: p.httpPort },
    ],
  });
  return {
    ...base,
    node: { id: 'soak-node', state_dir: p.stateDir, workers: p.workers },
    log: { level: 'warn', file: path.join(p.stateDir, 'weir.log') },
    control: { listen: `127.0.0.1:${p.controlPort}`, api_key: SOAK_API_KEY },
    redis: { url: p.redisUrl },
    event_sinks: [
      // Every rotated file is kept: the oracle reads them all.
      { type: 'jsonl', tag: 'archive', path: archivePath(p.stateDir), keep_files: ARCHIVE_FILES_KEPT },
      {
        type: 'webhook',
        tag: SOAK_SINK,
        url: p.receiverUrl,
        token: SOAK_TOKEN,
        events: ['flow.completed'],
        batch_size: p.batchSize,
        timeout_ms: SINK_TIMEOUT_MS,
        backoff_base_ms: 200,
        backoff_max_ms: 5000,
      },
    ],
  };
}
