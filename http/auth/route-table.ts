import type { Scope } from '../../actors/config/schema-control.js';
import { ROUTE_SCOPE } from './route-scope.js';

/** A route of the control plane and the scope its first handler demands; null when it demands none. */
export interface ScopedRoute {
  method: string;
  path: string;
  scope: Scope | null;
}

/** The parts of an Express 5 (router 2) layer read here. */
interface Layer {
  handle: unknown;
  /** The path a layer was made for: a route's, or a `use` mount's. */
  rawPath?: unknown;
  route?: { path: string; methods: Record<string, boolean>; stack: { handle: unknown }[] };
}

function scopeOf(handle: unknown): Scope | null {
  return typeof handle === 'function' && ROUTE_SCOPE in handle ? (handle as { [ROUTE_SCOPE]: Scope })[ROUTE_SCOPE] : null;
}

function stackOf(handle: unknown): Layer[] | null {
  const stack = typeof handle === 'function' ? (handle as { stack?: unknown }).stack : undefined;
  return Array.isArray(stack) ? (stack as Layer[]) : null;
}

/**
 * Every route of a router and of the routers mounted in it, each method apart, with
 * the scope its first handler demands (readable() or write()). Read from Express's own
 * stack, so a route added without a scope shows here with none.
 */
export function routeTable(router: unknown, prefix = ''): ScopedRoute[] {
  const stack = stackOf(router) ?? (router as { stack?: Layer[] }).stack ?? [];
  return stack.flatMap((layer) => {
    if (layer.route) {
      const scope = scopeOf(layer.route.stack[0]?.handle);
      return Object.keys(layer.route.methods).map((method) => ({ method: method.toUpperCase(), path: prefix + layer.route!.path, scope }));
    }
    const inner = stackOf(layer.handle);
    if (inner === null) return [];
    const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
    return routeTable(layer.handle, prefix + mount);
  });
}
