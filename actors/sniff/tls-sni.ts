import { hostOutcome, SNIFF_MORE, SNIFF_NONE, type SniffOutcome } from './sniff-outcome.js';

const HANDSHAKE_RECORD = 0x16;
const CLIENT_HELLO = 0x01;
const SERVER_NAME_EXTENSION = 0x0000;
const HOST_NAME_TYPE = 0x00;
/** Largest TLS record body (2^14) plus the expansion allowed for compressed records. */
const MAX_RECORD = 16_384 + 2048;

/**
 * The server name (SNI) of a TLS ClientHello at the start of `buf` (RFC 8446 §4.1.2,
 * RFC 6066 §3). The hello may span several handshake records; until all of it is
 * there the answer is `more`.
 */
export function sniffTlsSni(buf: Buffer): SniffOutcome {
  const hello = handshakeMessage(buf);
  return Buffer.isBuffer(hello) ? serverName(hello) : hello;
}

/** The ClientHello body from the handshake records at the start of `buf`. */
function handshakeMessage(buf: Buffer): Buffer | SniffOutcome {
  const fragments: Buffer[] = [];
  let have = 0;
  let need = -1;
  let at = 0;
  while (need < 0 || have < need + 4) {
    // A record header: type, legacy version 3.x, length; a partial one is judged as far as it goes.
    if (buf.length > at && buf[at] !== HANDSHAKE_RECORD) return SNIFF_NONE;
    if (buf.length > at + 1 && buf[at + 1] !== 0x03) return SNIFF_NONE;
    if (buf.length < at + 5) return SNIFF_MORE;
    const length = buf.readUInt16BE(at + 3);
    if (length === 0 || length > MAX_RECORD) return SNIFF_NONE;
    if (buf.length < at + 5 + length) return SNIFF_MORE;
    fragments.push(buf.subarray(at + 5, at + 5 + length));
    have += length;
    at += 5 + length;
    if (need < 0 && have >= 4) {
      const head = fragments.length === 1 ? fragments[0]! : Buffer.concat(fragments);
      if (head[0] !== CLIENT_HELLO) return SNIFF_NONE;
      need = head.readUIntBE(1, 3);
    }
  }
  const message = fragments.length === 1 ? fragments[0]! : Buffer.concat(fragments);
  return message.subarray(4, 4 + need);
}

/** Walks the ClientHello body to the server_name extension. */
function serverName(hello: Buffer): SniffOutcome {
  const r = new Reader(hello);
  // legacy_version, random, session id, cipher suites, compression methods.
  if (!r.skip(2 + 32) || !r.skipVector(1) || !r.skipVector(2) || !r.skipVector(1)) return SNIFF_NONE;
  const extensions = r.vector(2);
  if (!extensions) return SNIFF_NONE;
  const e = new Reader(extensions);
  while (e.remaining > 0) {
    const type = e.uint16();
    const body = e.vector(2);
    if (type === null || !body) return SNIFF_NONE;
    if (type !== SERVER_NAME_EXTENSION) continue;
    const list = new Reader(body).vector(2);
    if (!list) return SNIFF_NONE;
    const names = new Reader(list);
    while (names.remaining > 0) {
      const nameType = names.uint8();
      const name = names.vector(2);
      if (nameType === null || !name) return SNIFF_NONE;
      if (nameType === HOST_NAME_TYPE) return hostOutcome(name.toString('latin1'));
    }
    return SNIFF_NONE;
  }
  return SNIFF_NONE;
}

/** Bounds-checked reads over a buffer; every read returns null past the end. */
class Reader {
  private at = 0;

  constructor(private readonly buf: Buffer) {}

  get remaining(): number {
    return this.buf.length - this.at;
  }

  skip(n: number): boolean {
    if (this.remaining < n) return false;
    this.at += n;
    return true;
  }

  uint8(): number | null {
    return this.remaining < 1 ? null : this.buf[this.at++]!;
  }

  uint16(): number | null {
    if (this.remaining < 2) return null;
    const v = this.buf.readUInt16BE(this.at);
    this.at += 2;
    return v;
  }

  /** A length-prefixed vector (prefix of `size` bytes). */
  vector(size: 1 | 2): Buffer | null {
    const length = size === 1 ? this.uint8() : this.uint16();
    if (length === null || this.remaining < length) return null;
    const v = this.buf.subarray(this.at, this.at + length);
    this.at += length;
    return v;
  }

  skipVector(size: 1 | 2): boolean {
    return this.vector(size) !== null;
  }
}
