import os from 'node:os';
import { z } from 'zod';
import { isRedisUrl, MAX_TIMER_MS, pemPath, timerMsSchema, wellFormedString } from './schema-common.js';
import type { SecretSchema } from './schema-secrets.js';

// Field docs live in .describe() so editors show them from the JSON Schema too.

/**
 * The replay ring's bounds, both allocated when the node starts (21 bytes a slot, the
 * arena whole). The arena's offsets are 32-bit, which bounds max_bytes; max_events is
 * bounded so a stray digit does not allocate gigabytes of slots. Below 64 KiB the arena
 * would hold hardly one flow's events.
 */
const replayRingSchema = z
  .strictObject({
    max_events: z
      .number()
      .int()
      .min(1)
      .max(16_777_216)
      .default(65_536)
      .describe('Most recent events kept for resuming (SSE/WebSocket since, GET /api/v1/events, a replaced sink).'),
    max_bytes: z
      .number()
      .int()
      .min(65_536)
      .max(2 ** 32 - 1)
      .default(33_554_432)
      .describe('Bytes of envelope JSON the replay ring keeps at most, allocated at start (32 MiB).'),
  })
  .prefault({})
  .describe('The replay ring: whichever bound is reached first drops the oldest events; a resume from before them is told the gap.');

/**
 * Processes that run the data path (docs/workers.md). 1 runs it in the node's own
 * process; more start that many worker processes beside it. The bound keeps a stray
 * digit from forking hundreds of processes.
 */
const workersSchema = z
  .union([z.number().int().min(1).max(256), z.literal('auto')])
  .default(1)
  .transform((n) => (n === 'auto' ? os.availableParallelism() : n))
  .describe('Processes that run the inbounds and flows: 1 (the node process itself), a count up to 256, or "auto" for one per core (os.availableParallelism()). Default: 1.');

export const nodeSchema = z
  .strictObject({
    // It names the node's Redis keys (weir:<id>:...) and is sent as source_id.
    id: wellFormedString()
      .min(1)
      .optional()
      .transform((id) => id ?? os.hostname())
      .describe('Node identifier, sent as source_id on sink deliveries. Default: the host name.'),
    state_dir: wellFormedString()
      .min(1)
      .default('./state')
      .describe('State directory (outbox, API key, IPC socket), relative to the config file.'),
    replay_ring: replayRingSchema,
    workers: workersSchema,
  })
  .prefault({});

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;

export const logSchema = z
  .strictObject({
    level: z.enum(LOG_LEVELS).default('info'),
    file: wellFormedString()
      .min(1)
      .optional()
      .describe('Log file (JSON lines), relative to the config file. Default: stdout.'),
    access: z
      .boolean()
      .default(true)
      .describe('One info line per completed flow (inbound, source, user, target, outbound, outcome and failure code, bytes, duration). false for a busy node. Default: true.'),
  })
  .prefault({});

export const flowsSchema = z
  .strictObject({
    idle_timeout_s: z
      .number()
      .positive()
      // A UDP association's idle timer waits this long.
      .max(MAX_TIMER_MS / 1000)
      .default(300)
      .describe('Seconds without traffic before a flow is closed with close_reason idle_timeout.'),
    connect_timeout_ms: timerMsSchema(1)
      .default(10_000)
      .describe('Milliseconds to open the TCP connection to the remote or the first hop.'),
    handshake_timeout_ms: timerMsSchema(1)
      .default(10_000)
      .describe('Milliseconds from a client connection to its complete handshake (SOCKS5 request, or first HTTP request head: 408 after), and for an upstream proxy handshake.'),
    // Each kept record is one FlowRecord object (~1-2 KiB): the bound keeps the history's memory small.
    history_size: z
      .number()
      .int()
      .min(0)
      .max(100_000)
      .default(1000)
      .describe('Completed flows kept in memory for GET /api/v1/flows?state=completed, newest replacing oldest (records). 0 keeps none.'),
  })
  .prefault({});

const redisTlsSchema = z
  .strictObject({
    ca: pemPath().optional().describe('PEM file of the CAs that sign the Redis server certificate, relative to the config file. Default: the system CAs.'),
    cert: pemPath().optional().describe('PEM client certificate (chain) file, for a Redis that asks for one (tls-auth-clients), relative to the config file. With key.'),
    key: pemPath().optional().describe('PEM private key file of cert, relative to the config file. With cert.'),
    servername: wellFormedString().min(1).optional().describe("Server name sent (SNI) and checked in the server certificate. Default: the URL's host."),
  })
  .refine((t) => (t.cert === undefined) === (t.key === undefined), 'takes cert and key together')
  .describe('TLS of rediss:// URLs: CA, client certificate and server name. Default: the system CAs, no client certificate.');

export function redisSchema(secret: SecretSchema) {
  // A secret: the URL may carry the password. An empty one stands for one an offline reader could not read.
  const redisUrl = secret
    .refine((url) => url.reveal() === '' || isRedisUrl(url.reveal()), 'must be a redis:// or rediss:// URL')
    // For editors; a pattern constrains only the inline (string) form.
    .meta({ pattern: '^[Rr][Ee][Dd][Ii][Ss][Ss]?://' });
  return z
    .strictObject({
      url: redisUrl.optional().describe('redis:// or rediss:// URL of a standalone Redis, which may carry a password: a string, { "env": NAME } or { "file": PATH }.'),
      cluster: z
        .array(redisUrl)
        .min(1)
        .optional()
        .describe('Seed URLs of a Redis Cluster (redis:// or rediss://, each a secret like url; the credentials and TLS of the first apply to every node). Instead of url.'),
      username: wellFormedString()
        .min(1)
        .optional()
        .describe('ACL user (Redis 6 and later) weir signs in as, with the password of the URL (docs/fleet.md gives its least-privilege ACL). Default: the URL\'s user, else "default".'),
      tls: redisTlsSchema.optional(),
    })
    .refine((r) => (r.url === undefined) !== (r.cluster === undefined), 'takes exactly one of url (a standalone Redis) and cluster (a Redis Cluster)')
    .superRefine((r, ctx) => {
      // Messages name fields only: a URL may hold the password. One that is no URL has its own problem.
      const urls = [...(r.url ? [r.url] : []), ...(r.cluster ?? [])].map((s) => s.reveal()).filter((u) => URL.canParse(u));
      if (r.tls && urls.some((u) => !/^rediss:/i.test(u))) ctx.addIssue({ code: 'custom', path: ['tls'], message: 'applies to rediss:// URLs, and a URL is redis://' });
      if (r.username && urls.some((u) => new URL(u).username !== '')) ctx.addIssue({ code: 'custom', path: ['username'], message: 'is in the URL too: give the user once' });
    })
    .optional()
    .describe('Redis for the BullMQ outbox. Without it sinks use the embedded outbox in node.state_dir.');
}

export const outboxSchema = z
  .strictObject({
    max_bytes: z
      .number()
      .int()
      .min(1)
      .default(1_073_741_824)
      .describe('Bytes the outbox may hold before new writes are blocked (1 GiB).'),
    min_free_bytes: z
      .number()
      .int()
      .min(0)
      .default(268_435_456)
      .describe('Bytes to keep free on the state_dir disk; below that new writes are blocked (256 MiB).'),
  })
  .prefault({});
