import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';

// Hop-by-hop headers (RFC 9110 §7.6.1) and the proxy's own: never forwarded.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

const NONE: ReadonlySet<string> = new Set();
const HOST: ReadonlySet<string> = new Set(['host']);

/**
 * The end-to-end headers of a request or answer, as they came (name case, order,
 * repeats): the hop-by-hop ones, those its Connection header names, and `drop`
 * (lower case) are left out.
 */
export function forwardHeaders(msg: IncomingMessage, drop = NONE): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  const named = new Set(
    String(msg.headers.connection ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase()),
  );
  for (let i = 0; i < msg.rawHeaders.length; i += 2) {
    const name = msg.rawHeaders[i]!;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || named.has(lower) || drop.has(lower)) continue;
    const prev = headers[name];
    const value = msg.rawHeaders[i + 1]!;
    headers[name] = prev === undefined ? value : ([] as string[]).concat(prev as string | string[], value);
  }
  return headers;
}

/**
 * The headers of a forwarded request: its end-to-end ones with Host made from the
 * request target's authority, as a proxy must (RFC 9112 §3.2.2), not the client's.
 * Routing matched the target: a Host of the client's choosing could name another site
 * on the same address (a CDN's), one the rules block, and an HTTP/1.0 client may send
 * none, which an HTTP/1.1 origin refuses.
 */
export function originRequestHeaders(req: IncomingMessage, authority: string): OutgoingHttpHeaders {
  return { Host: authority, ...forwardHeaders(req, HOST) };
}
