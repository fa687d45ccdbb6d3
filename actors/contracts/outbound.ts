import type { Socket } from 'node:net';
import type { Endpoint, RelayHop } from '../../streams/contract.js';
import type { TargetAddresses } from '../net/target-resolver.js';

/** What a dial hands to the relay: a connected socket to the target, through any hops. */
export interface DialResult {
  socket: Socket;
  /** One element per upstream hop, in order; empty for a direct dial. */
  relay_chain: RelayHop[];
  /** Bytes the outbound handshake (hop negotiation) read and wrote on `socket`. */
  handshake: { rx: number; tx: number };
  /** The address actually dialled, when known. */
  resolved_ip?: string;
}

export interface DialOptions {
  connectTimeoutMs: number;
  /**
   * The flow's target addresses as routing saw them: a direct dial connects to these
   * and looks the name up no second time. Chained outbounds send the name to the hop.
   */
  addresses?: TargetAddresses;
  /** route.block_private: a direct dial to a private address is refused (TargetRefusedError). */
  refusePrivate?: boolean;
}

/** An outbound that is a leaf: it either carries the flow somewhere or refuses it. */
export interface Outbound {
  readonly tag: string;
  /** The config `type`: direct, block, socks, http, chain. */
  readonly protocol: string;
  /** `relay` outbounds dial; `block` refuses every flow. */
  readonly kind: 'relay' | 'block';
  /** Chained outbounds relay through upstream proxies: outcome `chained_relayed`. */
  readonly chained: boolean;
  dial(target: Endpoint, opts: DialOptions): Promise<DialResult>;
}
