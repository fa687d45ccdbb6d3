import path from 'node:path';
import type { ConfigShape } from './schema-shape.js';

type Control = ConfigShape['control'];
type Route = ConfigShape['route'];
type RedisTls = NonNullable<NonNullable<ConfigShape['redis']>['tls']>;

/** The config after derived defaults: every path absolute, `ipc` and `final` filled. */
export type FinishedConfig = Omit<ConfigShape, 'control' | 'route'> & {
  control: Control & { ipc: string };
  route: Route & { final: string };
};

function tlsPaths(tls: NonNullable<Control['tls']>, baseDir: string): NonNullable<Control['tls']> {
  const cert = path.resolve(baseDir, tls.cert);
  const key = path.resolve(baseDir, tls.key);
  return tls.client_ca === undefined ? { cert, key } : { cert, key, client_ca: path.resolve(baseDir, tls.client_ca) };
}

function redisTlsPaths(tls: RedisTls, baseDir: string): RedisTls {
  const at = (file: string | undefined) => (file === undefined ? undefined : path.resolve(baseDir, file));
  return { ...tls, ca: at(tls.ca), cert: at(tls.cert), key: at(tls.key) };
}

/**
 * Fills the defaults that depend on other fields and makes every path absolute, so
 * nothing at runtime depends on the working directory.
 */
export function finishConfig(shape: ConfigShape, baseDir: string): FinishedConfig {
  const stateDir = path.resolve(baseDir, shape.node.state_dir);
  const final =
    shape.route.final ??
    (shape.outbounds.some((o) => o.tag === 'direct') ? 'direct' : (shape.outbounds[0]?.tag ?? 'direct'));
  return {
    ...shape,
    node: { ...shape.node, state_dir: stateDir },
    log: shape.log.file === undefined ? shape.log : { ...shape.log, file: path.resolve(baseDir, shape.log.file) },
    control: {
      ...shape.control,
      ipc: shape.control.ipc === undefined ? path.join(stateDir, 'weir.sock') : path.resolve(baseDir, shape.control.ipc),
      ...(shape.control.tls && { tls: tlsPaths(shape.control.tls, baseDir) }),
    },
    route: { ...shape.route, final },
    ...(shape.redis?.tls && { redis: { ...shape.redis, tls: redisTlsPaths(shape.redis.tls, baseDir) } }),
    ...(shape.ipc_hook && { ipc_hook: { ...shape.ipc_hook, path: path.resolve(baseDir, shape.ipc_hook.path) } }),
    event_sinks: shape.event_sinks.map((s) => (s.type === 'jsonl' ? { ...s, path: path.resolve(baseDir, s.path) } : s)),
  };
}
