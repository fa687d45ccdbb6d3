import type { Endpoint } from '../../streams/contract.js';
import { isDialPort } from '../net/dial-port.js';

/** Parses a CONNECT authority (`host:port`, `[v6]:port`). */
export function authorityTarget(authority: string | undefined): Endpoint | null {
  if (!authority) return null;
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:/\s[\]]+)):(\d{1,5})$/.exec(authority);
  if (!m) return null;
  const port = Number(m[3]);
  if (!isDialPort(port)) return null;
  return { host: (m[1] ?? m[2])!, port };
}

/** An absolute-form request target: where to dial, the path to ask for, and its authority for Host. */
export interface AbsoluteTarget {
  target: Endpoint;
  path: string;
  /** `host[:port]` as the target names it (no user info, no default port 80). */
  authority: string;
}

/** Parses an absolute-form request target (`http://host[:port]/path`). */
export function absoluteTarget(url: string | undefined): AbsoluteTarget | null {
  // WHATWG URL skips any run of slashes (and backslashes) after `http:`, so `http:///x`
  // would be host `x`: a target whose authority is empty names no host.
  if (!url || !/^http:\/\/[^/\\]/i.test(url)) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = parsed.port ? Number(parsed.port) : 80;
  if (!host || !isDialPort(port)) return null;
  return { target: { host, port }, path: `${parsed.pathname}${parsed.search}`, authority: parsed.host };
}

