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

/**
 * The end-to-end headers of a request or answer, as they came (name case, order,
 * repeats): the hop-by-hop ones, and those its Connection header names, are left out.
 */
export function forwardHeaders(msg: IncomingMessage): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  const named = new Set(
    String(msg.headers.connection ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase()),
  );
  for (let i = 0; i < msg.rawHeaders.length; i += 2) {
    const name = msg.rawHeaders[i]!;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || named.has(lower)) continue;
    const prev = headers[name];
    const value = msg.rawHeaders[i + 1]!;
    headers[name] = prev === undefined ? value : ([] as string[]).concat(prev as string | string[], value);
  }
  return headers;
}
