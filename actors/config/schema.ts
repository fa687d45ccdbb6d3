import type { z } from 'zod';
import { finishConfig } from './finish-config.js';
import type { SecretSources } from './schema-secrets.js';
import { configShapeSchema } from './schema-shape.js';

export type { SecretSources } from './schema-secrets.js';

/**
 * The whole config schema. Secrets resolve against `sources` while parsing, and the
 * output has every default filled and every path absolute (against `sources.baseDir`).
 */
export function configSchema(sources: SecretSources) {
  return configShapeSchema(sources).transform((shape) => finishConfig(shape, sources.baseDir));
}

/** The validated config: secrets resolved to `Secret`, defaults filled, paths absolute. */
export type WeirConfig = z.output<ReturnType<typeof configSchema>>;
export type InboundConfig = WeirConfig['inbounds'][number];
export type OutboundConfig = WeirConfig['outbounds'][number];
export type SinkConfig = WeirConfig['event_sinks'][number];
export type JsonlSinkConfig = Extract<SinkConfig, { type: 'jsonl' }>;
export type WebhookSinkConfig = Extract<SinkConfig, { type: 'webhook' }>;
