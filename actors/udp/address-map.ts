import { encodeUdpHeader } from '../socks5/socks5-wire.js';

/** Most addresses one association remembers; past it the oldest is forgotten. */
const ADDRESS_MAP_LIMIT = 256;

/**
 * A value per host:port, made on first use and kept for the association's life.
 * Bounded: a client that sprays destinations cannot grow it without limit.
 */
export class AddressMap<V> {
  private readonly values = new Map<string, V>();

  constructor(
    private readonly make: (host: string, port: number) => V,
    private readonly limit = ADDRESS_MAP_LIMIT,
  ) {}

  get size(): number {
    return this.values.size;
  }

  has(host: string, port: number): boolean {
    return this.values.has(keyOf(host, port));
  }

  get(host: string, port: number): V {
    const key = keyOf(host, port);
    return this.values.get(key) ?? this.insert(key, host, port);
  }

  /** Makes the value of an address not seen yet; false when it was known. */
  add(host: string, port: number): boolean {
    const key = keyOf(host, port);
    if (this.values.has(key)) return false;
    this.insert(key, host, port);
    return true;
  }

  private insert(key: string, host: string, port: number): V {
    const value = this.make(host, port);
    if (this.values.size >= this.limit) this.values.delete(this.values.keys().next().value!);
    this.values.set(key, value);
    return value;
  }
}

function keyOf(host: string, port: number): string {
  return `${port} ${host}`;
}

/** The SOCKS UDP headers (RSV RSV FRAG=0 ATYP ADDR PORT) of the addresses an association talks to. */
export function headerMap(): AddressMap<Buffer> {
  return new AddressMap((host, port) => encodeUdpHeader({ host, port }));
}

/**
 * Length of the SOCKS UDP header at the front of `datagram`, or -1 when it is not a
 * whole, unfragmented header: read without decoding the address.
 */
export function udpHeaderLength(datagram: Buffer): number {
  if (datagram.length < 4 || datagram[2] !== 0) return -1;
  const atyp = datagram[3];
  const address = atyp === 1 ? 4 : atyp === 4 ? 16 : atyp === 3 && datagram.length > 4 ? 1 + datagram[4]! : -1;
  if (address <= 0 || (atyp === 3 && address === 1)) return -1;
  const length = 4 + address + 2;
  return datagram.length >= length ? length : -1;
}
