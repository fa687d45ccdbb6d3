import net from 'node:net';
import { z } from 'zod';
import { isHost, wellFormedString } from './schema-common.js';
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
