import net from 'node:net';
import { WeirError } from './weir-error.js';

/** How long the look at the Redis address waits for the OS to answer. */
const CONNECT_CHECK_MS = 2000;

/** The OS errors of a connection that did not come about or was cut. */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);

/**
 * ioredis's own words when it has no connection (the cluster client's first): they name neither the address nor
 * what the OS said, so an operator cannot tell a stopped Redis from a wrong URL.
 */
const CONNECTION_LOST = [/^Failed to refresh slots cache/, /^None of startup nodes is available/, /^Connection is closed\.?$/, /^Reached the max retries per request limit/, /^Stream isn't writeable/, /^connect E[A-Z]+ /];

/** Redis cannot be reached: the URL without its credentials, and the OS error (`ECONNREFUSED 127.0.0.1:6399`). */
export class RedisUnreachableError extends WeirError<'REDIS_UNAVAILABLE'> {
  constructor(
    readonly location: string,
    readonly osError: string,
    options?: { cause?: unknown },
  ) {
    super('REDIS_UNAVAILABLE', `Redis at ${location} is not reachable: ${osError}`, options);
  }
}

/** Whether `err` is Redis (ioredis, BullMQ) saying it has no connection. */
export function isRedisConnectionError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as NodeJS.ErrnoException).code;
  return (code !== undefined && CONNECTION_CODES.has(code)) || CONNECTION_LOST.some((words) => words.test(err.message));
}

/** A Redis URL as it may be shown: scheme, host, port and db, never a user name or password. */
export function redisLocation(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
  } catch {
    return 'the configured URL';
  }
}

/** What the OS says now to a connection to the URL's address (ioredis's errors do not say it). */
function osErrorAt(url: string): Promise<string> {
  let host = '127.0.0.1';
  let port = 6379;
  try {
    const parsed = new URL(url);
    host = parsed.hostname.replace(/^\[(.*)\]$/, '$1') || host;
    port = Number(parsed.port) || port;
  } catch {
    // An unparsable URL: the default address ioredis would use too.
  }
  const at = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (answer: string): void => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(CONNECT_CHECK_MS, () => done(`ETIMEDOUT ${at}`));
    socket.once('error', (err: NodeJS.ErrnoException) => done(`${err.code ?? 'ECONNECT'} ${at}`));
    socket.once('connect', () => done(`the connection to ${at} was lost`));
  });
}

/**
 * The error a caller shows for `err` from a Redis client on `url`: a RedisUnreachableError
 * naming the URL (no credentials) and the OS error when Redis had no connection, else
 * `err` unchanged.
 */
export async function explainRedisError(err: unknown, url: string): Promise<unknown> {
  if (!isRedisConnectionError(err)) return err;
  return new RedisUnreachableError(redisLocation(url), await osErrorAt(url), { cause: err });
}
