import type { Endpoint } from '../../streams/contract.js';

/** Parses a CONNECT authority (`host:port`, `[v6]:port`). */
export function authorityTarget(authority: string | undefined): Endpoint | null {
  if (!authority) return null;
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:/\s[\]]+)):(\d{1,5})$/.exec(authority);
  if (!m) return null;
  const port = Number(m[3]);
  if (port < 1 || port > 65535) return null;
  return { host: (m[1] ?? m[2])!, port };
}

/** Parses an absolute-form request target (`http://host[:port]/path`). */
export function absoluteTarget(url: string | undefined): { target: Endpoint; path: string } | null {
  if (!url || !/^http:\/\//i.test(url)) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) return null;
  return { target: { host, port: parsed.port ? Number(parsed.port) : 80 }, path: `${parsed.pathname}${parsed.search}` };
}
