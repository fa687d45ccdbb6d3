import type { Logger } from 'pino';
import type { InboundConfig } from '../config/schema.js';
import type { FlowEnv } from '../flows/flow-opener.js';
import { openFilesLimit } from '../process/open-files-limit.js';
import { ConnectionBudget, inboundConnectionLimit } from './connection-budget.js';
import { ProxyInbound } from './proxy-inbound.js';

/**
 * Builds one listener per configured inbound, all holding their client connections in
 * one budget sized by the descriptor limit; passwords are revealed here and nowhere else.
 */
export function buildInbounds(
  configs: readonly InboundConfig[],
  flows: FlowEnv,
  handshakeTimeoutMs: number,
  log: Logger,
): ProxyInbound[] {
  const connections = new ConnectionBudget(inboundConnectionLimit(openFilesLimit()), log);
  return configs.map((c) => {
    const users = c.users?.map((u) => ({ username: u.username, password: u.password.reveal(), principal: u.principal })) ?? null;
    return new ProxyInbound(
      c.type,
      { host: c.listen, port: c.port },
      { flows, inbound: { tag: c.tag, protocol: c.type }, users, handshakeTimeoutMs, log: log.child({ inbound: c.tag }) },
      connections,
    );
  });
}
