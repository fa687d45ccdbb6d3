import dgram from 'node:dgram';
import { isIP } from 'node:net';
import { dialFailure } from '../errors/flow-failure.js';
import { privateRange } from '../net/private-address.js';
import { dialableAddress, privateRefusal } from '../outbounds/dialable-target.js';
import type { SocksTarget } from '../socks5/socks5-wire.js';
import { AddressMap, headerMap } from './address-map.js';
import { plainIp } from '../net/plain-ip.js';
import { reportSend, type UdpUpstream, type UdpUpstreamEvents } from './udp-upstream.js';

/** Most host names one association keeps resolved. */
const NAME_LIMIT = 64;

/** A host name's address, as far as the association knows it. */
interface Name {
  address: string | null;
  /** The lookup under way: datagrams that come meanwhile wait for it instead of starting their own. */
  pending: Promise<string> | null;
}

/** Resolves a host name to the address datagrams go to. */
export type Resolve = (host: string) => Promise<string>;

/**
 * Sends each datagram straight to the destination the client named, from sockets of
 * the association's own (one per address family, opened when first needed). Replies
 * from any source come back framed with that source's address (full cone, as RFC 1928
 * relays do). Host names are resolved once per association and kept, without the
 * unspecified address (a DNS sinkhole's answer), which a send takes for this host.
 * One lookup per name is under way at a time, so a burst of datagrams to a name that
 * does not resolve costs one lookup, not one each (lookups share libuv's few threads
 * with the sinks' file writes). With route.block_private, the first destination's
 * address in the node's own networks refuses the flow, and a later datagram to one is
 * dropped as a failed send; the verdict is kept per address, so a datagram costs a map
 * lookup, not an address parse.
 */
export class DirectUdpUpstream implements UdpUpstream {
  readonly relay_chain = [];
  readonly control = null;
  resolved_ip: string | undefined;
  private readonly sockets = new Map<4 | 6, dgram.Socket>();
  private readonly names: AddressMap<Name> = new AddressMap((): Name => ({ address: null, pending: null }), NAME_LIMIT);
  private readonly sources = headerMap();
  private closed = false;
  /** Set once open() has finished: a bind error before it is open()'s to report. */
  private live = false;
  /** The payload is sent as it is: all the bytes on the wire are payload. */
  private readonly onSent = (err: Error | null, bytes: number): void => {
    if (!this.closed) reportSend(this.events, err, bytes, 0);
  };

  /** With route.block_private: whether each address datagrams went to is private, remembered per address. */
  private readonly privates: AddressMap<boolean> | null;

  private constructor(
    private readonly events: UdpUpstreamEvents,
    private readonly resolve: Resolve,
    refusePrivate: boolean,
  ) {
    this.privates = refusePrivate ? new AddressMap((address) => privateRange(address) !== null) : null;
  }

  /**
   * Resolves the first destination and binds a socket of its family; a name that does
   * not resolve or a socket that cannot bind fails the flow like a TCP dial would.
   */
  static async open(first: SocksTarget, events: UdpUpstreamEvents, resolve: Resolve = dialableAddress, refusePrivate = false): Promise<DirectUdpUpstream> {
    const upstream = new DirectUdpUpstream(events, resolve, refusePrivate);
    try {
      const address = isIP(first.host) ? first.host : await resolve(first.host);
      const refusal = refusePrivate ? privateRefusal(first, [address]) : null;
      if (refusal) throw refusal;
      // Names are kept per host: port 0 stands for every port.
      if (!isIP(first.host)) upstream.names.get(first.host, 0).address = address;
      upstream.resolved_ip = address;
      await new Promise<void>((resolve, reject) => {
        const socket = upstream.socketFor(isIP(address) === 6 ? 6 : 4);
        socket.once('error', reject);
        // exclusive: in a worker of node.workers, a socket of its own, not one node:cluster shares through the hub.
        socket.bind({ port: 0, exclusive: true }, () => {
          socket.off('error', reject);
          resolve();
        });
      });
    } catch (err) {
      upstream.close();
      throw dialFailure(err, first);
    }
    upstream.live = true;
    return upstream;
  }

  send(target: SocksTarget, data: Buffer): void {
    if (isIP(target.host)) this.sendTo(target.host, target.port, data);
    else {
      const name = this.names.get(target.host, 0);
      if (name.address !== null) this.sendTo(name.address, target.port, data);
      else void this.resolveAndSend(target, data, name);
    }
  }

  close(): void {
    this.closed = true;
    for (const socket of this.sockets.values()) socket.close();
    this.sockets.clear();
  }

  private async resolveAndSend(target: SocksTarget, data: Buffer, name: Name): Promise<void> {
    const pending = (name.pending ??= this.resolve(target.host));
    try {
      name.address = await pending;
    } catch (err) {
      // The next datagram after a failure asks again: the name may resolve by then.
      if (name.pending === pending) name.pending = null;
      if (!this.closed) this.events.sendFailed(err as Error);
      return;
    }
    if (!this.closed) this.sendTo(name.address, target.port, data);
  }

  private sendTo(address: string, port: number, data: Buffer): void {
    if (this.privates?.get(address, 0)) {
      this.events.sendFailed(privateRefusal({ host: address, port }, [address])!);
      return;
    }
    this.socketFor(isIP(address) === 6 ? 6 : 4).send(data, port, address, this.onSent);
  }

  private socketFor(family: 4 | 6): dgram.Socket {
    let socket = this.sockets.get(family);
    if (!socket) {
      // An unbound socket binds itself to a random port on its first send.
      socket = dgram.createSocket(family === 6 ? 'udp6' : 'udp4');
      socket.on('message', (msg, rinfo) => {
        this.events.reply([this.sources.get(plainIp(rinfo.address), rinfo.port), msg], msg.length, msg.length);
      });
      socket.on('error', (err) => {
        if (this.live && !this.closed) this.events.broken(err);
      });
      this.sockets.set(family, socket);
    }
    return socket;
  }
}
