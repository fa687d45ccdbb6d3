import type { WeirConfig } from '../config/schema.js';
import type { RouterOptions } from '../router/router.js';

/** What the router takes of a config: its route section, at start and at every reload. */
export function routerOptions(config: WeirConfig): RouterOptions {
  return {
    mode: config.route.mode,
    globalTarget: config.route.global_target,
    rules: config.route.rules,
    final: config.route.final,
    blockPrivate: config.route.block_private,
  };
}
