import { z } from 'zod';
import { EVENT_TYPES, type EventType } from '../../streams/contract.js';
import { fetchRefusesPort } from '../net/fetch-bad-ports.js';
import { httpUrlSchema, tagSchema, timerMsSchema, unknownTypeError, wellFormedString } from './schema-common.js';
import type { SecretSchema } from './schema-secrets.js';

/** flow.snapshot is a baseline of a live subscription and never reaches a sink. */
const SINK_EVENT_TYPES = EVENT_TYPES.filter(
  (t): t is Exclude<EventType, 'flow.snapshot'> => t !== 'flow.snapshot',
);

export type SinkEventFilter = Exclude<EventType, 'flow.snapshot'> | '*';

const eventFilterSchema = z
  .array(
    z.enum(['*', ...SINK_EVENT_TYPES] as [SinkEventFilter, ...SinkEventFilter[]], {
      error: (iss) => {
        if (iss.input === 'flow.snapshot') {
          return '"flow.snapshot" is never delivered to sinks (it is only the baseline of a live subscription)';
        }
        const shown = typeof iss.input === 'string' ? ` ${JSON.stringify(iss.input)}` : '';
        return `unknown event type${shown} (allowed: *, ${SINK_EVENT_TYPES.join(', ')})`;
      },
    }),
  )
  .nullish()
  // The contract's whitelist: null means all, as an omitted list does.
  .transform((list) => list ?? undefined)
  .describe('Event types to deliver; "*", an empty list, null or no list means all (flow.snapshot never).');

const jsonlSinkSchema = z.strictObject({
  type: z.literal('jsonl'),
  tag: tagSchema,
  path: wellFormedString().min(1).describe('File that envelopes are appended to, relative to the config file.'),
  events: eventFilterSchema,
  max_bytes: z
    .number()
    .int()
    .min(1)
    .default(67_108_864)
    .describe('Size in bytes at which the file is rotated (64 MiB).'),
  keep_files: z.number().int().min(0).default(5).describe('Rotated files kept beside the current one.'),
  fsync_interval_ms: timerMsSchema(0)
    .default(1000)
    .describe('Milliseconds between fsyncs of the file; 0 syncs after every write.'),
});

function webhookSinkSchema(secret: SecretSchema) {
  return z.strictObject({
    type: z.literal('webhook'),
    tag: tagSchema,
    // Refused rather than hidden: a password in the URL would show wherever the URL does (config.apply's answer).
    url: httpUrlSchema
      .refine((s) => !URL.canParse(s) || !hasUserinfo(new URL(s)), "must not carry a user name or password: the sink's token authenticates it")
      .refine((s) => !URL.canParse(s) || !fetchRefusesPort(new URL(s)), 'is on a port HTTP clients refuse to connect to (the Fetch standard’s bad ports, e.g. 10080, 6665-6669); use another port')
      .describe('Full URL that envelopes are POSTed to.'),
    token: secret.describe('Key of the webhook-signature HMAC: a string, { "env": NAME } or { "file": PATH }.'),
    events: eventFilterSchema,
    batch_size: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(100)
      .describe('Most envelopes per POST. With no backlog each goes out alone at once (the body is the envelope); with a backlog a POST carries up to this many (the body is a JSON array of envelopes).'),
    concurrency: z.number().int().min(1).max(64).default(4).describe('POSTs in flight at once.'),
    delivery: z
      .enum(['node', 'external'])
      .default('node')
      .describe('Who delivers the sink\'s Redis queue: the node itself ("node"), or `weir deliver` processes ("external"; needs `redis`). Events the node keeps in its outage journal while Redis does not answer are moved into the queue once it does, and delivered from there.'),
    timeout_ms: timerMsSchema(1).default(10_000).describe('Milliseconds before a POST counts as failed.'),
    retry_for_s: z
      .number()
      .min(0)
      .default(259_200)
      .describe('Seconds an event is retried before it goes to the dead-letter set (3 days).'),
    backoff_base_ms: timerMsSchema(1)
      .default(1000)
      .describe('Milliseconds of the first retry backoff; it doubles per attempt, with full jitter.'),
    backoff_max_ms: timerMsSchema(1)
      .default(3_600_000)
      .describe('Longest backoff between two attempts in milliseconds (1 h), unless Retry-After asks for more.'),
  });
}

export function sinkSchema(secret: SecretSchema) {
  return z.discriminatedUnion('type', [jsonlSinkSchema, webhookSinkSchema(secret)], {
    error: unknownTypeError('sink'),
  });
}

function hasUserinfo(url: URL): boolean {
  return url.username !== '' || url.password !== '';
}
