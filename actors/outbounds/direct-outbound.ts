import type { Endpoint } from '../../streams/contract.js';
import type { DialOptions, DialResult, Outbound } from '../contracts/outbound.js';
import { dialableLookup, refuseUnspecified } from './dialable-target.js';
import { connectedIp, tcpConnect } from './tcp-connect.js';

export class DirectOutbound implements Outbound {
  readonly protocol = 'direct';
  readonly kind = 'relay';
  readonly chained = false;

  constructor(readonly tag: string) {}

  async dial(target: Endpoint, opts: DialOptions): Promise<DialResult> {
    refuseUnspecified(target);
    const socket = await tcpConnect(target, opts.connectTimeoutMs, dialableLookup);
    const result: DialResult = { socket, relay_chain: [], handshake: { rx: 0, tx: 0 } };
    const resolvedIp = connectedIp(socket, target);
    if (resolvedIp) result.resolved_ip = resolvedIp;
    return result;
  }
}
