import type { ConfigProblem } from './problems.js';
import type { WeirConfig } from './schema.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
const UNSPECIFIED = new Set(['0.0.0.0', '::']);

/** The hosts a hop may name to reach an inbound listening on `listen` from this machine. */
function reachingHosts(listen: string): Set<string> {
  if (UNSPECIFIED.has(listen)) return new Set([...LOOPBACK, listen]);
  if (LOOPBACK.has(listen)) return new Set([listen, 'localhost']);
  return new Set([listen]);
}

/**
 * Upstream proxies that are this node's own inbounds. A flow sent to one comes back in
 * as a new flow, routed the same way: one client connection becomes an unbounded storm
 * of connections through the node (measured: thousands of sockets and hundreds of MB
 * within seconds). A loop through another host cannot be seen here.
 */
export function checkSelfLoops(config: WeirConfig): ConfigProblem[] {
  return config.outbounds.flatMap((outbound, i) => {
    if (outbound.type !== 'socks' && outbound.type !== 'http') return [];
    const own = config.inbounds.find((inbound) => inbound.port !== 0 && inbound.port === outbound.port && reachingHosts(inbound.listen).has(outbound.server.toLowerCase()));
    if (!own) return [];
    return [{ path: `outbounds[${i}].server`, message: `${outbound.server}:${outbound.port} is this node's own inbound "${own.tag}": flows sent there would loop back into the node` }];
  });
}
