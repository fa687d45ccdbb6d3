import net from 'node:net';
import { z } from 'zod';
import { isHost, pemPath, wellFormedString } from './schema-common.js';
import type { SecretSchema } from './schema-secrets.js';

/** `host:port` or `[ipv6]:port`, split; undefined when malformed. */
export function parseListen(listen: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(listen);
  if (m === null) return undefined;
  const port = Number(m[3]);
  const host = m[1] ?? m[2] ?? '';
  const hostOk = m[1] !== undefined ? net.isIPv6(host) : isHost(host);
  return hostOk && port <= 65535 ? { host, port } : undefined;
}

/**
 * The control plane can close flows, switch outbounds and add sinks: a key short enough
 * to guess is refused (16 characters: 96 bits as base64, 64 as hex).
 */
export const API_KEY_MIN_LENGTH = 16;

/** A listen address, `host:port`. */
const listenString = () =>
  z
    .string()
    .refine((s) => parseListen(s) !== undefined, 'must be host:port (IPv6 as [addr]:port, port 0-65535)')
    .meta({ pattern: '^(\\[[0-9A-Fa-f:.]+\\]|[^:\\[\\]]+):[0-9]{1,5}$' });

/** What a key may do: each scope takes in the ones before it (docs/control-plane.md). */
export const SCOPES = ['read', 'operate', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** The id `control.api_key` goes by in the audit trail; no entry of `control.keys` may take it. */
export const API_KEY_ID = 'api_key';

const keyIdSchema = wellFormedString()
  .regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1 to 64 letters, digits, ".", "_" or "-"')
  .refine((id) => id !== API_KEY_ID, `"${API_KEY_ID}" is the id of control.api_key`);

const tlsSchema = z
  .strictObject({
    cert: pemPath().describe('PEM certificate (chain) file of the control plane, relative to the config file. Re-read on SIGHUP and when it changes.'),
    key: pemPath().describe('PEM private key file matching `cert`, relative to the config file. Re-read with `cert`.'),
    client_ca: pemPath()
      .optional()
      .describe('PEM file of the CAs whose client certificates are accepted: with it, a client without such a certificate is refused during the handshake (mTLS). Default: none (no client certificate asked for).'),
  })
  .describe('TLS of the control listener and the metrics listener: HTTP, SSE, WebSocket, the Clash API and /metrics. Default: none (plain HTTP, allowed only on loopback unless insecure_plaintext).');

export function controlSchema(secret: SecretSchema) {
  return z.strictObject({
    listen: listenString()
      .default('127.0.0.1:9090')
      .describe('Address of the HTTP control plane, host:port.'),
    metrics_listen: listenString()
      .optional()
      .describe('Address of a listener that serves GET /metrics alone, open without the API key, host:port. Default: none (GET /metrics of the control plane, behind the key).'),
    api_key: secret.describe(
      `Bearer key of the control plane, at least ${API_KEY_MIN_LENGTH} characters: a string, { "env": NAME } or { "file": PATH }.`,
    ),
    keys: z
      .array(
        z.strictObject({
          id: keyIdSchema.describe('Names the key in the audit trail and the log; never secret.'),
          key: secret.describe(`The Bearer key, at least ${API_KEY_MIN_LENGTH} characters: a string, { "env": NAME } or { "file": PATH }.`),
          scope: z.enum(SCOPES).describe('read: every GET and stream; operate: also select, mode, log level, flows close, probe; admin: also config.apply, reload, dead-letter replay, principals reset.'),
        }),
      )
      .default([])
      .describe('More Bearer keys of the control plane, each with an id and a scope. control.api_key is an admin key with the id "api_key".'),
    tls: tlsSchema.optional(),
    insecure_plaintext: z
      .boolean()
      .default(false)
      .describe('Allows plain HTTP on a control.listen beyond loopback (keys then cross the network in cleartext). Default: refused.'),
    ipc: wellFormedString()
      .min(1)
      .optional()
      .describe('IPC socket path, relative to the config file. Default: <state_dir>/weir.sock.'),
    health_requires_key: z
      .boolean()
      .default(true)
      .describe('Whether GET /api/v1/health needs the API key too.'),
    max_body_bytes: z
      .number()
      .int()
      .min(1)
      .default(1_048_576)
      .describe('Largest accepted request body in bytes (1 MiB).'),
  });
}
