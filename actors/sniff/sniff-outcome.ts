import { isIP } from 'node:net';

/**
 * What the first client bytes tell: a host name, that more bytes are needed to know,
 * or that they carry no host name (another protocol, or malformed).
 */
export type SniffOutcome = { kind: 'host'; host: string } | { kind: 'more' } | { kind: 'none' };

export const SNIFF_MORE: SniffOutcome = Object.freeze({ kind: 'more' });
export const SNIFF_NONE: SniffOutcome = Object.freeze({ kind: 'none' });

/** The bytes of a host name (RFC 1123 labels; `_` too, as seen in the wild). */
const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

/**
 * A normalized host name, lower case without a trailing dot. An IP literal is none:
 * it tells nothing the target address did not.
 */
export function hostOutcome(raw: string): SniffOutcome {
  const host = raw.toLowerCase().replace(/\.$/, '');
  return HOST_NAME.test(host) && isIP(host) === 0 ? { kind: 'host', host } : SNIFF_NONE;
}
