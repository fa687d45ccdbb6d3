import { z } from 'zod';
import {
  dialPortSchema,
  hostSchema,
  httpUrlSchema,
  MAX_TIMER_MS,
  objectCheck,
  tagListSchema,
  tagSchema,
  timerMsSchema,
  unknownTypeError,
  wellFormedString,
} from './schema-common.js';
import type { SecretSchema } from './schema-secrets.js';

/** Outbound types that can be a hop of a chain. */
export const HOP_TYPES: readonly string[] = ['socks', 'http'];

/** RFC 1929 gives a SOCKS5 username and password one length byte each: at most this many UTF-8 bytes. */
export const MAX_SOCKS5_CREDENTIAL_BYTES = 255;

/** Refuses a SOCKS5 credential the hop could not be sent; the message gives its length, never its value. */
function socks5Sendable(what: 'username' | 'password', value: string, ctx: z.RefinementCtx): void {
  const bytes = Buffer.byteLength(value);
  if (bytes > MAX_SOCKS5_CREDENTIAL_BYTES) {
    ctx.addIssue({ code: 'custom', message: `a SOCKS5 ${what} is at most ${MAX_SOCKS5_CREDENTIAL_BYTES} bytes (it is ${bytes})` });
  }
}

/**
 * Refuses a Basic user-id with a colon (RFC 7617 §2): the hop splits user-id from password
 * at the first one, so it would check another user with another password and answer 407.
 */
function basicSendable(username: string, ctx: z.RefinementCtx): void {
  if (username.includes(':')) ctx.addIssue({ code: 'custom', message: 'an HTTP proxy username cannot contain ":" (Basic auth splits user and password there)' });
}

function upstreamProxyOf<T extends 'socks' | 'http'>(type: T, secret: SecretSchema) {
  // Sent to the upstream proxy as UTF-8 (SOCKS5 sub-negotiation, Proxy-Authorization).
  const username = wellFormedString().min(1);
  return z
    .strictObject({
      type: z.literal(type),
      tag: tagSchema,
      server: hostSchema.describe('Host name or IP of the upstream proxy.'),
      port: dialPortSchema,
      username: username.superRefine((u, ctx) => (type === 'socks' ? socks5Sendable('username', u, ctx) : basicSendable(u, ctx))).optional(),
      password: (type === 'socks' ? secret.superRefine((p, ctx) => socks5Sendable('password', p.reveal(), ctx)) : secret).optional(),
    })
    .refine(
      (o) => (o.username === undefined) === (o.password === undefined),
      objectCheck('username and password must be given together', ['password']),
    );
}

const membersSchema = tagListSchema.superRefine((members, ctx) => {
  members.forEach((tag, i) => {
    if (members.indexOf(tag) !== i) ctx.addIssue({ code: 'custom', path: [i], message: `duplicate member "${tag}"` });
  });
});

const selectorSchema = z
  .strictObject({
    type: z.literal('selector'),
    tag: tagSchema,
    members: membersSchema.describe('Outbound tags the selector can switch between.'),
    default: tagSchema.optional().describe('Member selected at start. Default: the first member.'),
  })
  .refine(
    // members may be invalid here (see objectCheck); that problem is reported on its own.
    (o) => o.default === undefined || !Array.isArray(o.members) || o.members.includes(o.default),
    objectCheck('must be one of the members', ['default']),
  );

const urlTestSchema = z.strictObject({
  type: z.literal('url_test'),
  tag: tagSchema,
  members: membersSchema.describe('Outbound tags that are probed; the fastest healthy one is used.'),
  url: httpUrlSchema.describe(
    'Probe URL, fetched through each member with its full query; events and answers show each query value as REDACTED.',
  ),
  interval_s: z.number().positive().max(MAX_TIMER_MS / 1000).default(300).describe('Seconds between probe rounds.'),
  tolerance_ms: z
    .number()
    .int()
    .min(0)
    .default(50)
    .describe('Milliseconds a member must beat the current one by before the group switches.'),
  timeout_ms: timerMsSchema(1).default(5000).describe('Milliseconds before a probe counts as failed.'),
});

export function outboundSchema(secret: SecretSchema) {
  return z.discriminatedUnion(
    'type',
    [
      z.strictObject({ type: z.literal('direct'), tag: tagSchema }),
      z.strictObject({ type: z.literal('block'), tag: tagSchema }),
      upstreamProxyOf('socks', secret),
      upstreamProxyOf('http', secret),
      z.strictObject({
        type: z.literal('chain'),
        tag: tagSchema,
        hops: tagListSchema.describe('socks/http outbound tags, dialled in order: the first hop first.'),
      }),
      selectorSchema,
      urlTestSchema,
    ],
    { error: unknownTypeError('outbound') },
  );
}
