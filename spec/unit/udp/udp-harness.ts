import net from 'node:net';
import { once } from 'node:events';
import { pino } from 'pino';
import type { FlowRecord, UdpUpstreamStats } from '../../../streams/contract.js';
import type { OutboundConfig } from '../../../actors/config/schema.js';
import { zeroUdpStats } from '../../../actors/flows/flow-stats.js';
import type { FlowEnv } from '../../../actors/flows/flow-opener.js';
import { FlowTable } from '../../../actors/flows/flow-table.js';
import type { InboundEnv } from '../../../actors/inbounds/inbound-env.js';
import { handleSocks5 } from '../../../actors/inbounds/socks5-session.js';
import { buildOutbounds } from '../../../actors/outbounds/build-outbounds.js';
import type { RuleSpec } from '../../../actors/router/rule-matcher.js';
import { Router } from '../../../actors/router/router.js';
import { systemLookup } from '../../../actors/net/target-resolver.js';
import { waitFor } from '../../support/wait-for.js';

export interface HarnessOptions {
  outbounds?: OutboundConfig[];
  rules?: RuleSpec[];
  /** @defaultValue 'direct' */
  final?: string;
  /** @defaultValue 30000 */
  idleTimeoutMs?: number;
  dialFailed?: FlowEnv['dialFailed'];
}

/** A SOCKS5 inbound served by weir's own session handler on a loopback port, with its flow table. */
export interface UdpHarness {
  port: number;
  env: InboundEnv;
  table: FlowTable;
  stats: UdpUpstreamStats;
  /** Every completed record, in order. */
  completed: FlowRecord[];
  /** Waits for the `n`th completed record (1-based). */
  nthCompleted(n: number): Promise<FlowRecord>;
  close(): Promise<void>;
}

export const DIRECT_AND_BLOCK: OutboundConfig[] = [
  { type: 'direct', tag: 'direct' },
  { type: 'block', tag: 'block' },
];

export async function udpHarness(opts: HarnessOptions = {}): Promise<UdpHarness> {
  const idleTimeoutMs = opts.idleTimeoutMs ?? 30_000;
  const table = new FlowTable({ idPrefix: 'u', idleTimeoutMs });
  const completed: FlowRecord[] = [];
  const subscription = table.changes$.subscribe((c) => c.kind === 'completed' && completed.push(c.record));
  const stats = zeroUdpStats();
  const env: InboundEnv = {
    flows: {
      table,
      router: new Router({ mode: 'rule', rules: opts.rules ?? [], final: opts.final ?? 'direct' }),
      outbounds: buildOutbounds(opts.outbounds ?? DIRECT_AND_BLOCK),
      resolve: systemLookup,
      connectTimeoutMs: 2000,
      idleTimeoutMs,
      udpStats: stats,
      now: Date.now,
      dialFailed: opts.dialFailed,
    },
    inbound: { tag: 'socks-in', protocol: 'socks' },
    users: null,
    handshakeTimeoutMs: 2000,
    log: pino({ level: 'silent' }),
  };
  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    socket.on('error', () => socket.destroy());
    handleSocks5(env, socket).catch(() => socket.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as net.AddressInfo).port,
    env,
    table,
    stats,
    completed,
    nthCompleted: (n) => waitFor(() => completed[n - 1], 3000, `completed flow #${n}`),
    close: async () => {
      subscription.unsubscribe();
      await table.closeAll('shutdown', 1000);
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Resolves when the node ends the association's control connection; fails the spec after 3 s. */
export async function controlEnded(association: { controlClosed: Promise<void> }): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the control connection was not ended within 3000 ms')), 3000);
  });
  try {
    await Promise.race([association.controlClosed, late]);
  } finally {
    clearTimeout(timer);
  }
}
