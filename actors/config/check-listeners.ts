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

/**
 * Listeners of the node that would take the same port: `validate` says so instead of
 * `run` failing on EADDRINUSE. Port 0 picks a free port and clashes with nothing.
 */
export function checkListeners(config: WeirConfig): ConfigProblem[] {
  const listeners: Listener[] = config.inbounds.map((inbound, i) => ({
    path: `inbounds[${i}].port`,
    name: `inbound "${inbound.tag}"`,
    host: inbound.listen,
    port: inbound.port,
  }));
  const control = parseListen(config.control.listen);
  if (control) listeners.push({ path: 'control.listen', name: 'the control plane', ...control });
  return listeners.flatMap((l, i) => {
    const earlier = listeners.slice(0, i).find((e) => l.port !== 0 && clash(e, l));
    return earlier ? [{ path: l.path, message: `port ${l.port} is taken by ${earlier.name} (${earlier.host}:${earlier.port})` }] : [];
  });
}
