import { SocketAddress, isIP } from 'node:net';
import { plainIp } from './plain-ip.js';

// One inet_aton part: hex after 0x, octal after a leading 0, else decimal.
const PART = /^(?:0x[0-9a-f]+|0[0-7]*|[1-9][0-9]*)$/i;

/**
 * The IP address a target host names without a DNS query, written the one way the
 * rules compare it, or null for a host name. Node's connect hands a host that isIP
 * rejects to getaddrinfo, which reads every numeric form below as the address:
 * routing must see that address, not a name that no ip_cidr rule matches.
 *
 * - IPv4 in any form glibc's inet_aton accepts (getaddrinfo reads numeric hosts with
 *   it): one to four parts, each decimal, octal (leading 0) or hex (0x), the last part
 *   filling the bytes left. `127.1`, `2130706433`, `0x7f000001` and `0177.0.0.1` are
 *   all 127.0.0.1. A trailing dot makes it a name (getaddrinfo asks DNS for it).
 * - IPv6 in its RFC 5952 form, without a zone id; an IPv4-mapped address in any
 *   spelling (`::ffff:7f00:1`, `0:0:0:0:0:ffff:127.0.0.1`) as the IPv4 address it
 *   carries, which is where a dual-stack connect goes.
 */
export function ipOfHost(host: string): string | null {
  const family = isIP(host);
  // Every flow's route asks: a dotted quad (isIP takes no leading zeros) is already the one way.
  if (family === 4) return host;
  if (family === 6) return plainIp(new SocketAddress({ address: host, family: 'ipv6' }).address);
  return inetAton(host);
}

/** The dotted quad of an inet_aton IPv4 form, or null when `text` is not one. */
function inetAton(text: string): string | null {
  const parts = text.split('.');
  if (parts.length > 4 || !parts.every((part) => PART.test(part))) return null;
  const values = parts.map(partValue);
  const last = values.pop()!;
  // Every part but the last is one byte; the last fills the 4 - values.length bytes left.
  if (values.some((v) => v > 0xff) || last >= 2 ** (8 * (4 - values.length))) return null;
  const address = values.reduce((sum, v, i) => sum + v * 2 ** (24 - 8 * i), last);
  return [address >>> 24, (address >>> 16) & 0xff, (address >>> 8) & 0xff, address & 0xff].join('.');
}

function partValue(part: string): number {
  if (/^0x/i.test(part)) return parseInt(part.slice(2), 16);
  return parseInt(part, part.length > 1 && part.startsWith('0') ? 8 : 10);
}
