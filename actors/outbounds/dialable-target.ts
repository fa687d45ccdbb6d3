import type { Endpoint } from '../../streams/contract.js';
import { FlowFailureError, TargetRefusedError } from '../errors/flow-failure.js';
import { ipOfHost } from '../net/ip-of-host.js';
import { privateRange } from '../net/private-address.js';
import { systemLookup, type ResolveTarget } from '../net/target-resolver.js';
import { sendableTarget } from './hop.js';

const UNSPECIFIED = new Set(['0.0.0.0', '::']);

/** Whether `host` is the unspecified address, in any spelling ipOfHost reads. */
export function isUnspecified(host: string): boolean {
  const ip = ipOfHost(host);
  return ip !== null && UNSPECIFIED.has(ip);
}

/**
 * Refuses a target that names no destination: the unspecified address (in any spelling
 * ipOfHost reads). A connect to it reaches this host, past every rule on 127.0.0.0/8
 * or ::1, so it is never dialled, directly or through a chain.
 */
export function refuseUnspecified(target: Endpoint): void {
  if (isUnspecified(target.host)) {
    throw new FlowFailureError('TARGET_INVALID', `${target.host} is the unspecified address, not a destination`, target);
  }
}

/** Refuses a target a chain's hops cannot be asked for (sendableTarget), before any hop is dialled. */
export function refuseUnsendable(target: Endpoint): void {
  if (!sendableTarget(target)) {
    throw new FlowFailureError('TARGET_INVALID', 'the target is not a host name or IP address a hop can be asked to connect to', target);
  }
}

/**
 * The addresses a name is dialled at: all but the unspecified ones. A name that
 * resolves to 0.0.0.0 (as DNS sinkholes answer for blocked names) is not dialled to
 * this host; with nothing else it fails ENOTFOUND, as a name without addresses does.
 */
export function dialableAddresses(hostname: string, addresses: readonly string[]): string[] {
  const dialable = addresses.filter((a) => !UNSPECIFIED.has(a));
  if (dialable.length === 0) throw onlyUnspecified(hostname);
  return dialable;
}

/** The first dialable address of `hostname` (UDP datagrams go to one). */
export async function dialableAddress(hostname: string, resolve: ResolveTarget = systemLookup): Promise<string> {
  return dialableAddresses(hostname, await resolve(hostname))[0]!;
}

/**
 * The refusal, under route.block_private, of a target any of whose addresses is in the
 * node's own networks (privateRange), else null. Any one is enough: a name with a
 * public and a private address would otherwise reach the private one whenever the
 * public one fails.
 */
export function privateRefusal(target: Endpoint, addresses: readonly string[]): TargetRefusedError | null {
  for (const address of addresses) {
    const range = privateRange(address);
    if (range === null) continue;
    const what = address === ipOfHost(target.host) ? address : `${target.host} resolves to ${address}, which`;
    return new TargetRefusedError('TARGET_PRIVATE', `${what} is a ${range} address (route.block_private)`, { host: address, port: target.port });
  }
  return null;
}

/** A name with only the unspecified address fails as a name without addresses does. */
function onlyUnspecified(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname} (it resolves only to the unspecified address)`), { code: 'ENOTFOUND' });
}
