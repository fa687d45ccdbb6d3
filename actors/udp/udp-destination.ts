import type { Endpoint } from '../../streams/contract.js';
import { FlowFailureError } from '../errors/flow-failure.js';
import { isDialPort } from '../net/dial-port.js';
import { isUnspecified, refuseUnspecified } from '../outbounds/dialable-target.js';

/**
 * Whether a datagram can be sent to `target`: not to the unspecified address, which a
 * send takes for this host as a connect does (past every rule on 127.0.0.0/8 and ::1),
 * and not to port 0, which dgram refuses by throwing out of the socket's handler.
 */
export function isDeliverable(target: Endpoint): boolean {
  return isDialPort(target.port) && !isUnspecified(target.host);
}

/** Refuses a first destination that is not deliverable with TARGET_INVALID, as a TCP dial does. */
export function refuseUndeliverable(target: Endpoint): void {
  refuseUnspecified(target);
  if (!isDialPort(target.port)) throw new FlowFailureError('TARGET_INVALID', `port ${target.port} is not a destination`, target);
}
