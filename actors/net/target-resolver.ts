import { Resolver, lookup } from 'node:dns/promises';
import { domainOf } from './host-name.js';
import { ipOfHost } from './ip-of-host.js';

/** Every address of a target host name, each written as ipOfHost writes it; rejects with an errno-coded error when there is none. */
export type ResolveTarget = (name: string) => Promise<string[]>;

/** The `dns` config section. */
export interface DnsOptions {
  hosts: Readonly<Record<string, string | readonly string[]>>;
  servers?: readonly string[] | undefined;
}

/** One query's wait for a server's answer, and how often it is sent (c-ares retries). */
const QUERY_TIMEOUT_MS = 1000;
const QUERY_TRIES = 2;

/**
 * The node's resolver for the targets it dials and judges: the fixed answers of
 * `dns.hosts` first, then the `dns.servers` (A and AAAA queries at once), or the
 * system's getaddrinfo when none are configured. Nothing is cached: each flow asks
 * once, and its dial uses that answer (targetAddresses).
 */
export function targetResolver(dns: DnsOptions): ResolveTarget {
  const fixed = new Map(Object.entries(dns.hosts).map(([name, ips]) => [domainOf(name), [ips].flat().map(canonical)]));
  const ask = dns.servers ? serversLookup(dns.servers) : systemLookup;
  return async (name) => fixed.get(domainOf(name)) ?? (await ask(name)).map(canonical);
}

/** getaddrinfo, as Node's connect asks it: /etc/hosts, then the system's DNS. */
export const systemLookup: ResolveTarget = async (name) => (await lookup(name, { all: true })).map((a) => a.address);

function serversLookup(servers: readonly string[]): ResolveTarget {
  const resolver = new Resolver({ timeout: QUERY_TIMEOUT_MS, tries: QUERY_TRIES });
  resolver.setServers(servers);
  return async (name) => {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(name), resolver.resolve6(name)]);
    const addresses = [...(v4.status === 'fulfilled' ? v4.value : []), ...(v6.status === 'fulfilled' ? v6.value : [])];
    if (addresses.length > 0) return addresses;
    const codes = [v4, v6].map((r) => (r.status === 'rejected' ? String((r.reason as NodeJS.ErrnoException).code) : 'ENODATA'));
    // Errno codes as getaddrinfo's: no such name or no address is ENOTFOUND, the rest (a timeout, SERVFAIL) EAI_AGAIN.
    const code = codes.every((c) => c === 'ENOTFOUND' || c === 'ENODATA') ? 'ENOTFOUND' : 'EAI_AGAIN';
    throw Object.assign(new Error(`${name}: A ${codes[0]}, AAAA ${codes[1]}`), { code });
  };
}

function canonical(ip: string): string {
  return ipOfHost(ip) ?? ip;
}

/** A flow's target addresses: the literal's own, or the name's, looked up once however often asked. */
export type TargetAddresses = () => Promise<readonly string[]>;

export function targetAddresses(host: string, resolve: ResolveTarget): TargetAddresses {
  const literal = ipOfHost(host);
  if (literal !== null) {
    const own = Promise.resolve([literal]);
    return () => own;
  }
  let answer: Promise<string[]> | undefined;
  return () => (answer ??= resolve(host));
}
