import { isIP, type LookupFunction } from 'node:net';
import type { Endpoint } from '../../streams/contract.js';
import type { DialOptions, DialResult, Outbound } from '../contracts/outbound.js';
import { dialFailure } from '../errors/flow-failure.js';
import { systemLookup, targetAddresses, type ResolveTarget } from '../net/target-resolver.js';
import { dialableAddress, dialableAddresses, privateRefusal, refuseUnspecified } from './dialable-target.js';
import { connectedIp, tcpConnect } from './tcp-connect.js';

/**
 * Connects to the target from this node. A name is resolved once per flow (routing may
 * have done it already, DialOptions.addresses), the addresses are judged
 * (route.block_private), and the connect goes to those very addresses: it asks no
 * resolver again, so an answer that changes between two lookups (DNS rebinding)
 * cannot send the flow somewhere that was not judged.
 */
export class DirectOutbound implements Outbound {
  readonly protocol = 'direct';
  readonly kind = 'relay';
  readonly chained = false;

  constructor(
    readonly tag: string,
    private readonly resolve: ResolveTarget = systemLookup,
  ) {}

  async dial(target: Endpoint, opts: DialOptions): Promise<DialResult> {
    refuseUnspecified(target);
    const judged = await this.addressesOf(target, opts);
    const socket = await tcpConnect(target, opts.connectTimeoutMs, fixedLookup(judged));
    const result: DialResult = { socket, relay_chain: [], handshake: { rx: 0, tx: 0 } };
    const resolvedIp = connectedIp(socket, target);
    if (resolvedIp) result.resolved_ip = resolvedIp;
    return result;
  }

  /** Where datagrams to `host` go (UDP): its first dialable address, from the same resolver. */
  firstAddress(host: string): Promise<string> {
    return dialableAddress(host, this.resolve);
  }

  private async addressesOf(target: Endpoint, opts: DialOptions): Promise<string[]> {
    const addresses = opts.addresses ?? targetAddresses(target.host, this.resolve);
    try {
      const all = await addresses();
      const refusal = opts.refusePrivate ? privateRefusal(target, all) : null;
      if (refusal) throw refusal;
      return dialableAddresses(target.host, all);
    } catch (err) {
      // A refusal and a failure with its code pass as they are; a lookup's errno gets one.
      throw dialFailure(err, target);
    }
  }
}

/**
 * A lookup that answers the judged addresses, whatever it is asked: Node's connect
 * calls it for a host that is not an IP literal and dials only what it answers.
 */
function fixedLookup(addresses: readonly string[]): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) {
      const all = addresses.map((address) => ({ address, family: isIP(address) }));
      (callback as unknown as (err: null, all: { address: string; family: number }[]) => void)(null, all);
    } else callback(null, addresses[0]!, isIP(addresses[0]!));
  };
}
