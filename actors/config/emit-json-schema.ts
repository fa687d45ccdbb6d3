import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { configShapeSchema } from './schema-shape.js';

/**
 * The JSON Schema of a config file, for editors (`"$schema": ".../weir.schema.json"`).
 * It describes the input: secrets are a string, { env } or { file }; defaults are shown.
 */
export function configJsonSchema(): Record<string, unknown> {
  // Secrets are resolved only while parsing, which never happens here.
  const schema = configShapeSchema({ baseDir: '.', env: {} });
  return { ...z.toJSONSchema(schema, { io: 'input', target: 'draft-2020-12' }), title: 'weir configuration' };
}

/** configJsonSchema as the text of schema/weir.schema.json. */
export function emitJsonSchema(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(emitJsonSchema());
}
