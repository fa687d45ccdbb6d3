import { z } from 'zod';
import { API_KEY_MIN_LENGTH, controlSchema } from './schema-control.js';
import { dnsSchema } from './schema-dns.js';
import { inboundSchema } from './schema-inbounds.js';
import { flowsSchema, logSchema, nodeSchema, outboxSchema, redisSchema } from './schema-node.js';
import { outboundSchema } from './schema-outbounds.js';
import { ipcHookSchema, routeSchema } from './schema-route.js';
import { secretSchema, type SecretSources } from './schema-secrets.js';
import { sinkSchema } from './schema-sinks.js';

/** The config document as validated, before derived defaults and path resolution. */
export function configShapeSchema(sources: SecretSources) {
  const secret = secretSchema(sources);
  return z.strictObject({
    $schema: z.string().optional().describe('JSON Schema reference for editors; ignored.'),
    node: nodeSchema,
    log: logSchema,
    control: controlSchema(secretSchema(sources, API_KEY_MIN_LENGTH)),
    redis: redisSchema(secret),
    flows: flowsSchema,
    inbounds: z.array(inboundSchema(secret)).default([]),
    outbounds: z.array(outboundSchema(secret)).min(1),
    route: routeSchema,
    dns: dnsSchema,
    ipc_hook: ipcHookSchema,
    event_sinks: z.array(sinkSchema(secret)).default([]),
    outbox: outboxSchema,
  });
}

export type ConfigShape = z.output<ReturnType<typeof configShapeSchema>>;
