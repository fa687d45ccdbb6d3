import { RedisUnreachableError } from '../errors/redis-unreachable.js';
import type { Cluster, Redis } from 'ioredis';

type RedisClient = Redis | Cluster;

/**
 * Redis answered and refused weir: the sign-in (WRONGPASS, NOAUTH), the TLS handshake
 * (a certificate either side does not trust), or a cluster's seeds the slots or state
 * a cluster client needs (clusterRefusalReason). Redis is as good as unreachable (REDIS_UNAVAILABLE,
 * the CLI's exit 3), and the message says why, naming the URL without its credentials.
 */
export class RedisRefusedError extends RedisUnreachableError {
  constructor(location: string, reason: string, options?: { cause?: unknown }) {
    super(location, reason, options);
    this.message = `Redis at ${location} refused weir: ${reason}`;
  }
}

/** Certificate checks of the client that Node names by OpenSSL's verify code. */
const VERIFY_CODES = /^(UNABLE_TO_|SELF_SIGNED_|DEPTH_ZERO_|CERT_|ERR_TLS_CERT_)/;

/**
 * Why `err` is a refusal, in words with no secret in them; null for any other error.
 * OpenSSL's messages (`…:error:0A000418:SSL routines:ssl3_read_bytes:tlsv1 alert
 * unknown ca:…`) are cut to their reason. A cluster client's "Failed to refresh slots
 * cache" holds what its last seed said as `lastNodeError`.
 */
export function refusalReason(err: unknown): string | null {
  if (!(err instanceof Error)) return null;
  if ('lastNodeError' in err) return clusterRefusalReason(err.lastNodeError);
  if (/^(WRONGPASS|NOAUTH)\b/.test(err.message)) return `the sign-in failed: ${err.message}`;
  const code = (err as NodeJS.ErrnoException).code ?? '';
  if (code.startsWith('ERR_SSL_')) {
    const reason = /:error:[0-9A-F]+:[^:]*:[^:]*:([^:]+)/.exec(err.message)?.[1] ?? err.message.trim();
    return `the TLS handshake failed: ${reason} (${code})`;
  }
  if (VERIFY_CODES.test(code)) return `the TLS handshake failed: ${err.message} (${code})`;
  return null;
}

/**
 * Why a seed's answer to CLUSTER SLOTS or CLUSTER INFO, which a cluster client asks
 * before it is ready, refuses weir: an ACL user without `+cluster|slots` or
 * `+cluster|info` (NOPERM), or a server that is no cluster; else as refusalReason. A
 * NOPERM elsewhere is one command's error, not a refusal of the connection.
 */
export function clusterRefusalReason(err: unknown): string | null {
  if (!(err instanceof Error)) return null;
  if (/^NOPERM\b/.test(err.message)) return `the ACL user may not run a command a cluster client needs: ${err.message}`;
  if (/^ERR .*cluster support disabled/.test(err.message)) return `the seeds are not a Redis Cluster: ${err.message}`;
  return refusalReason(err);
}

/**
 * In TLS 1.3 the server checks the client certificate after the client's handshake is
 * done: Redis then closes the connection, and the client's first write meets a reset
 * before the server's alert can be read.
 */
const CERTIFICATE_REFUSED = 'Redis closed the TLS connection before any reply, as it does with a client certificate it does not accept (redis.tls.cert)';

const refusals = new WeakMap<RedisClient, RedisUnreachableError>();

/**
 * Keeps the last refusal `client` met. A command then fails with ioredis's own words
 * ("Connection is closed.", the retry limit), which no longer say why: `refusalOf`
 * does, naming `place` (the URL without credentials, or a cluster's seeds). An
 * answering Redis ends the episode.
 */
export function watchRefusals(client: RedisClient, url: string, place: string): void {
  const overTls = /^rediss:/i.test(url);
  // Between ioredis's `connect` (the TLS handshake done) and `ready` (Redis answered).
  let handshaken = false;
  client.on('connect', () => (handshaken = overTls));
  client.on('error', (err: unknown) => {
    const cut = handshaken && ['ECONNRESET', 'EPIPE'].includes((err as NodeJS.ErrnoException).code ?? '');
    const reason = refusalReason(err) ?? (cut ? `${CERTIFICATE_REFUSED} (${(err as NodeJS.ErrnoException).code})` : null);
    handshaken = false;
    if (reason !== null) refusals.set(client, new RedisRefusedError(place, reason, { cause: err }));
  });
  client.on('ready', () => {
    handshaken = false;
    refusals.delete(client);
  });
}

/** Keeps `err` as why `client` cannot be used (cluster-readiness.ts), until it is ready. */
export function noteRefusal(client: RedisClient, err: RedisUnreachableError): void {
  refusals.set(client, err);
}

/** The refusal behind a failed command of `client`, else `err` as it is. */
export function refusalOf(client: RedisClient, err: unknown): unknown {
  return refusals.get(client) ?? err;
}
