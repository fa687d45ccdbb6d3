import fs from 'node:fs';
import type { ConfigProblem } from './problems.js';
import type { WeirConfig } from './schema.js';

/**
 * The PEM files of `redis.tls` can be read: a missing one is told when the config is
 * loaded, naming the file, not as a Redis that never answers. Paths are absolute here.
 */
export function checkRedisTls(config: WeirConfig): ConfigProblem[] {
  const tls = config.redis?.tls;
  if (!tls) return [];
  return (['ca', 'cert', 'key'] as const).flatMap((field): ConfigProblem[] => {
    const file = tls[field];
    if (file === undefined) return [];
    try {
      fs.readFileSync(file);
      return [];
    } catch (err) {
      return [{ path: `redis.tls.${field}`, message: `cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'read error'})` }];
    }
  });
}
