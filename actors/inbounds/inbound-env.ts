import type { Logger } from 'pino';
import type { TagProtocol } from '../../streams/contract.js';
import type { FlowEnv } from '../flows/flow-opener.js';
import type { InboundAccount } from '../contracts/credentials.js';

/** What one inbound's protocol handlers need. */
export interface InboundEnv {
  flows: FlowEnv;
  inbound: TagProtocol;
  /** Accounts; null or empty means no authentication. Passwords are revealed strings. */
  users: readonly InboundAccount[] | null;
  handshakeTimeoutMs: number;
  log: Logger;
}
