import { hostOutcome, SNIFF_MORE, SNIFF_NONE, type SniffOutcome } from './sniff-outcome.js';

/** A request head longer than this is not waited for. */
export const MAX_HTTP_HEAD = 8192;
const METHOD_PREFIX = /^[A-Z]{0,16}$/;
const REQUEST_LINE = /^[A-Z]{1,16} \S+ HTTP\/1\.[01]$/;

/**
 * The Host header of an HTTP/1.x request at the start of `buf`, without its port.
 * Anything that is not an HTTP/1 request head (HTTP/2's preface included) is none.
 */
export function sniffHttpHost(buf: Buffer): SniffOutcome {
  const text = buf.toString('latin1', 0, Math.min(buf.length, MAX_HTTP_HEAD));
  const lineEnd = text.indexOf('\n');
  if (lineEnd < 0) {
    const space = text.indexOf(' ');
    const method = space < 0 ? text : text.slice(0, space);
    if (!METHOD_PREFIX.test(method) || (space >= 0 && method === '')) return SNIFF_NONE;
    return text.length < MAX_HTTP_HEAD ? SNIFF_MORE : SNIFF_NONE;
  }
  if (!REQUEST_LINE.test(text.slice(0, lineEnd).replace(/\r$/, ''))) return SNIFF_NONE;
  let at = lineEnd + 1;
  for (;;) {
    const end = text.indexOf('\n', at);
    if (end < 0) return text.length < MAX_HTTP_HEAD ? SNIFF_MORE : SNIFF_NONE;
    const line = text.slice(at, end).replace(/\r$/, '');
    // The empty line ends the head: a request without Host.
    if (line === '') return SNIFF_NONE;
    const colon = line.indexOf(':');
    if (colon > 0 && line.slice(0, colon).toLowerCase() === 'host') return hostOutcome(withoutPort(line.slice(colon + 1).trim()));
    at = end + 1;
  }
}

/** `name:port` → `name`; `[v6]:port` → `v6`. */
function withoutPort(authority: string): string {
  if (authority.startsWith('[')) {
    const close = authority.indexOf(']');
    return close < 0 ? authority : authority.slice(1, close);
  }
  const colon = authority.lastIndexOf(':');
  return colon < 0 ? authority : authority.slice(0, colon);
}
