import ipaddr from 'ipaddr.js';
import { SocketAddress, isIPv4, isIPv6 } from 'node:net';
import { isHostName } from '../net/host-name.js';
import { ipOfHost } from '../net/ip-of-host.js';

/** REP field of a SOCKS5 reply (RFC 1928 §6). */
export const SOCKS5_REPLY = {
  succeeded: 0,
  generalFailure: 1,
  notAllowed: 2,
  networkUnreachable: 3,
  hostUnreachable: 4,
  connectionRefused: 5,
  ttlExpired: 6,
  commandNotSupported: 7,
  addressTypeNotSupported: 8,
} as const;

/** ATYP field (RFC 1928 §4). */
export const ATYP = { ipv4: 1, domain: 3, ipv6: 4 } as const;

/** Domain as given (targetHost checks a client's); IPv4 dotted; IPv6 in canonical compressed form (RFC 5952), no brackets. */
export interface SocksTarget {
  host: string;
  port: number;
}

/** Length of the ADDR field for an address type, or null for an unknown type (domain length is in its first byte). */
export function fixedAddressLength(atyp: number): number | null {
  if (atyp === ATYP.ipv4) return 4;
  if (atyp === ATYP.ipv6) return 16;
  return null;
}

/** Host text of an ADDR field: `bytes` holds the address alone (without the domain length byte). */
export function hostFromBytes(atyp: number, bytes: Buffer): string {
  if (atyp === ATYP.domain) return bytes.toString('utf8');
  if (atyp === ATYP.ipv4) return `${bytes[0]}.${bytes[1]}.${bytes[2]}.${bytes[3]}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(bytes.readUInt16BE(i).toString(16));
  // inet_ntop through SocketAddress gives the RFC 5952 form, including ::ffff:a.b.c.d for mapped IPv4.
  return new SocketAddress({ address: groups.join(':'), family: 'ipv6' }).address;
}

/**
 * The host a client's ADDR field names, or null when it names a domain that is not a
 * plausible host name (isHostName): those bytes are refused, never dialed nor written
 * to a hop. A domain in a numeric IPv4 form (`127.1`, `0x7f000001`) is the dotted
 * quad it names (ipOfHost), so the rules, the record and the dialer all see the
 * address connected to, and no resolver reads it another way.
 */
export function targetHost(atyp: number, bytes: Buffer): string | null {
  if (atyp !== ATYP.domain) return hostFromBytes(atyp, bytes);
  // latin1 keeps one character per byte: a byte outside ASCII fails isHostName as itself.
  const name = bytes.toString('latin1');
  return isHostName(name) ? (ipOfHost(name) ?? name) : null;
}

/**
 * ATYP ADDR PORT for a target, as used in requests, replies and UDP headers, after
 * `headroom` zero bytes for the caller's header: one allocation per message, from the
 * shared pool (every other byte is written here).
 */
export function encodeAddress(target: SocksTarget, headroom = 0): Buffer {
  const { host, port } = target;
  let out: Buffer;
  let at = headroom;
  if (isIPv4(host)) {
    out = Buffer.allocUnsafe(headroom + 7);
    out[at++] = ATYP.ipv4;
    at = writeIpv4(host, out, at);
  } else if (isIPv6(host)) {
    out = Buffer.allocUnsafe(headroom + 19);
    out[at++] = ATYP.ipv6;
    at = writeIpv6(host, out, at);
  } else {
    const length = Buffer.byteLength(host, 'utf8');
    // The length byte cannot say more than 255; a longer name would corrupt the message.
    if (length === 0 || length > 255) throw new RangeError(`domain length ${length} outside 1..255`);
    out = Buffer.allocUnsafe(headroom + 4 + length);
    out[at++] = ATYP.domain;
    out[at++] = length;
    at += out.write(host, at, 'utf8');
  }
  out.writeUInt16BE(port, at);
  out.fill(0, 0, headroom);
  return out;
}

/** The four bytes of a dotted IPv4 address (already checked by isIPv4) at `at`; returns the offset after them. */
function writeIpv4(host: string, out: Buffer, at: number): number {
  let part = 0;
  for (let i = 0; i < host.length; i++) {
    const c = host.charCodeAt(i);
    if (c === 0x2e) {
      out[at++] = part;
      part = 0;
    } else part = part * 10 + c - 0x30;
  }
  out[at++] = part;
  return at;
}

/** A dotted IPv4 tail of an IPv6 text address (`::1.2.3.4`, `::ffff:1.2.3.4`), before any zone id. */
const DOTTED_TAIL = /(\d+)\.(\d+)\.(\d+)\.(\d+)(%.*)?$/;

/**
 * The 16 bytes of an IPv6 text address (already checked by isIPv6) at `at`, a zone id
 * dropped; returns the offset after them. A dotted tail is turned into its two hex
 * groups first: ipaddr.js reads any `::a.b.c.d` as IPv4-mapped (::ffff:a.b.c.d), while
 * the IPv4-compatible form, which inet_ntop writes for ::/96, names other bytes.
 */
function writeIpv6(host: string, out: Buffer, at: number): number {
  const hex = host.replace(DOTTED_TAIL, (_, a: string, b: string, c: string, d: string, zone = '') => `${group(a, b)}:${group(c, d)}${zone}`);
  out.set(ipaddr.IPv6.parse(hex).toByteArray(), at);
  return at + 16;
}

function group(high: string, low: string): string {
  return ((Number(high) << 8) | Number(low)).toString(16);
}

/** Header of a UDP datagram between client and relay (RFC 1928 §7): RSV RSV FRAG ATYP ADDR PORT; data follows. */
export function encodeUdpHeader(target: SocksTarget, frag = 0): Buffer {
  const header = encodeAddress(target, 3);
  header[2] = frag;
  return header;
}

export interface UdpDatagram {
  frag: number;
  target: SocksTarget;
  data: Buffer;
}

/** Splits a client datagram; null when it is too short, names an unknown address type, or a domain targetHost refuses. */
export function decodeUdpDatagram(buf: Buffer): UdpDatagram | null {
  if (buf.length < 5) return null;
  const frag = buf[2]!;
  const atyp = buf[3]!;
  const fixed = fixedAddressLength(atyp);
  if (fixed === null && atyp !== ATYP.domain) return null;
  const addrStart = fixed === null ? 5 : 4;
  const addrLength = fixed ?? buf[4]!;
  const portAt = addrStart + addrLength;
  if (buf.length < portAt + 2) return null;
  const host = targetHost(atyp, buf.subarray(addrStart, portAt));
  if (host === null) return null;
  return { frag, target: { host, port: buf.readUInt16BE(portAt) }, data: buf.subarray(portAt + 2) };
}
