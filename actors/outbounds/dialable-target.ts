import { lookup, type LookupAddress } from 'node:dns';
import { lookup as lookupAll } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import type { Endpoint } from '../../streams/contract.js';
import { FlowFailureError } from '../errors/flow-failure.js';
import { ipOfHost } from '../net/ip-of-host.js';
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
 * dns.lookup without the unspecified addresses: a name that resolves to 0.0.0.0 (as
 * DNS sinkholes answer for blocked names) is not dialled to this host. A name with
 * nothing else fails ENOTFOUND, as a name without addresses does. Node's connect asks
 * for all addresses (autoSelectFamily) or for one.
 */
export const dialableLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...options, all: true }, (err, addresses) => {
    const dialable = err ? [] : addresses.filter(isDialable);
    if (!err && dialable.length === 0) err = onlyUnspecified(hostname);
    if (err) callback(err, '', 0);
    else if (options.all) (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, dialable);
    else callback(null, dialable[0]!.address, dialable[0]!.family);
  });
};

/** The first address of `hostname` that is not the unspecified one, as dialableLookup picks it. */
export async function dialableAddress(hostname: string): Promise<string> {
  const first = (await lookupAll(hostname, { all: true })).find(isDialable);
  if (!first) throw onlyUnspecified(hostname);
  return first.address;
}

function isDialable(address: LookupAddress): boolean {
  return !UNSPECIFIED.has(address.address);
}

/** A name with only the unspecified address fails as a name without addresses does. */
function onlyUnspecified(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname} (it resolves only to the unspecified address)`), { code: 'ENOTFOUND' });
}
