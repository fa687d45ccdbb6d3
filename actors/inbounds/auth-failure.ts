import type { FlowSource } from '../../streams/contract.js';
import type { InboundEnv } from './inbound-env.js';

/**
 * A client refused for credentials it offered: no flow is opened, so this line is the
 * operator's only trace of it, to watch for guessing. The user name is kept when the
 * caller knows it is one (never bytes that may hold the password), else null with the
 * name's length when the protocol gives one. The inbound's logger names the inbound already.
 */
export function noteAuthFailure(env: InboundEnv, peer: FlowSource | undefined, username: string | null, usernameLength?: number): void {
  env.log.info(usernameLength === undefined ? { peer, username } : { peer, username, username_length: usernameLength }, 'proxy authentication failed');
}
