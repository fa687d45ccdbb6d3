import { sniffHttpHost } from './http-host.js';
import { SNIFF_MORE, SNIFF_NONE, type SniffOutcome } from './sniff-outcome.js';
import { sniffTlsSni } from './tls-sni.js';

/** Client bytes looked at, at most: a large ClientHello (post-quantum key shares) fits. */
export const MAX_SNIFF_BYTES = 16_384;

/** The host name in a client's first bytes: TLS SNI or the HTTP Host header. */
export function sniffHost(buf: Buffer): SniffOutcome {
  if (buf.length === 0) return SNIFF_MORE;
  const outcome = buf[0] === 0x16 ? sniffTlsSni(buf) : sniffHttpHost(buf);
  return outcome.kind === 'more' && buf.length >= MAX_SNIFF_BYTES ? SNIFF_NONE : outcome;
}
