import type { FlowSource } from '../../streams/contract.js';
import type { InboundEnv } from './inbound-env.js';

/**
 * A client refused for credentials it offered: no flow is opened, so this line is the
 * operator's only trace of it, to watch for guessing. The user name is kept (it is no
 * secret), never the password. The inbound's logger names the inbound already.
 */
export function noteAuthFailure(env: InboundEnv, peer: FlowSource | undefined, username: string | null): void {
  env.log.info({ peer, username }, 'proxy authentication failed');
}
