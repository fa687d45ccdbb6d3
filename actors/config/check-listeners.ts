import { isIPv6 } from 'node:net';
import type { ConfigProblem } from './problems.js';
import { parseListen } from './schema-control.js';
import type { WeirConfig } from './schema.js';

interface Listener {
  path: string;
  name: string;
  host: string;
  port: number;
}

/** Whether `wide` listening takes `host`'s port too: `::` (dual-stack) every address, `0.0.0.0` every IPv4 one. */
function covers(wide: string, host: string): boolean {
  return wide === '::' || (wide === '0.0.0.0' && !isIPv6(host));
}

/** Whether two listeners would take the same port: the same address, or one listening on all of the other's. */
function clash(a: Listener, b: Listener): boolean {
  return a.port === b.port && (a.host === b.host || covers(a.host, b.host) || covers(b.host, a.host));
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/** Whether a connection from this machine to `server` reaches what listens on `listen`. */
function reaches(server: string, listen: string): boolean {
  const name = server.toLowerCase();
  if (name === listen) return true;
  // `localhost` is either loopback address; a listener on all addresses takes loopback too.
  if (name === 'localhost') return LOOPBACK.has(listen) || covers(listen, '127.0.0.1');
  return LOOPBACK.has(name) && covers(listen, name);
}

function inboundListeners(config: WeirConfig): Listener[] {
  return config.inbounds.map((inbound, i) => ({ path: `inbounds[${i}].port`, name: `inbound "${inbound.tag}"`, host: inbound.listen, port: inbound.port }));
}

/**
 * Listeners of the node that would take the same port: `validate` says so instead of
 * `run` failing on EADDRINUSE. Port 0 picks a free port and clashes with nothing.
 */
export function checkListeners(config: WeirConfig): ConfigProblem[] {
  const listeners = inboundListeners(config);
  const control = parseListen(config.control.listen);
  if (control) listeners.push({ path: 'control.listen', name: 'the control plane', ...control });
  const metrics = config.control.metrics_listen === undefined ? undefined : parseListen(config.control.metrics_listen);
  if (metrics) listeners.push({ path: 'control.metrics_listen', name: 'the metrics listener', ...metrics });
  return listeners.flatMap((l, i) => {
    const earlier = listeners.slice(0, i).find((e) => l.port !== 0 && clash(e, l));
    return earlier ? [{ path: l.path, message: `port ${l.port} is taken by ${earlier.name} (${earlier.host}:${earlier.port})` }] : [];
  });
}

/**
 * Upstream proxies that are this node's own inbounds. A flow sent to one comes back in
 * as a new flow, routed the same way: one client connection becomes an unbounded storm
 * of connections through the node, thousands of sockets within seconds. A loop through
 * another host cannot be seen here.
 */
export function checkSelfLoops(config: WeirConfig): ConfigProblem[] {
  const inbounds = inboundListeners(config);
  return config.outbounds.flatMap((outbound, i) => {
    if (outbound.type !== 'socks' && outbound.type !== 'http') return [];
    const own = inbounds.find((l) => l.port !== 0 && l.port === outbound.port && reaches(outbound.server, l.host));
    if (!own) return [];
    return [{ path: `outbounds[${i}].server`, message: `${outbound.server}:${outbound.port} is this node's own ${own.name}: flows sent there would loop back into the node` }];
  });
}
