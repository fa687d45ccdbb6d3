import { z } from 'zod';
import { ipSchema, listenPortSchema, tagSchema, unknownTypeError, wellFormedString } from './schema-common.js';
import type { SecretSchema } from './schema-secrets.js';

export const INBOUND_TYPES = ['socks', 'http', 'mixed'] as const;

function userSchema(secret: SecretSchema) {
  return z.strictObject({
    // Compared with what a client sends, which decodes from bytes and never holds a lone surrogate.
    username: wellFormedString().min(1),
    password: secret,
    principal: z
      .string()
      .min(1)
      .optional()
      .describe('Stable, non-sensitive principal_key of this user\'s flows. Default: the username.'),
  });
}

function usersSchema(secret: SecretSchema) {
  return z
    .array(userSchema(secret))
    .min(1)
    .superRefine((users, ctx) => {
      const seen = new Set<string>();
      users.forEach((user, i) => {
        if (seen.has(user.username)) {
          ctx.addIssue({ code: 'custom', path: [i, 'username'], message: `duplicate username "${user.username}"` });
        }
        seen.add(user.username);
      });
    })
    .optional()
    .describe('Accepted users; without users the inbound needs no authentication.');
}

function inboundOf<T extends (typeof INBOUND_TYPES)[number]>(type: T, secret: SecretSchema) {
  return z.strictObject({
    type: z.literal(type),
    tag: tagSchema,
    listen: ipSchema.default('127.0.0.1').describe('IP address to listen on.'),
    port: listenPortSchema.describe('TCP port; 0 picks a free one.'),
    users: usersSchema(secret),
  });
}

/** SOCKS5, HTTP proxy, or both on one port (`mixed`, told apart by the first byte). */
export function inboundSchema(secret: SecretSchema) {
  return z.discriminatedUnion(
    'type',
    [inboundOf('socks', secret), inboundOf('http', secret), inboundOf('mixed', secret)],
    { error: unknownTypeError('inbound') },
  );
}
