const LABELS = /^[A-Za-z0-9_-]{1,63}(?:\.[A-Za-z0-9_-]{1,63})*\.?$/;

/** Longest host name in characters, without the trailing dot of the root (RFC 1035 §2.3.4 less the length bytes). */
const MAX_NAME = 253;

/**
 * Whether `name` is a plausible DNS host name: labels of 1 to 63 ASCII letters,
 * digits, '-' or '_' (not in RFC 1123, but real names carry it), joined by single
 * dots, at most one trailing dot (the root), at most 253 characters without it.
 * This is the only kind of name weir takes from a client and writes to a hop.
 * Anything else (CR, LF, space, ':', '/', '@', '%', NUL, non-ASCII, an empty name
 * or label) would be framing or header bytes to the next hop, and no resolver finds
 * such a name; an empty one would make the dialer connect to localhost. An
 * internationalised name is taken in its ASCII (xn--) form only, as clients send it.
 */
export function isHostName(name: string): boolean {
  const bare = name.endsWith('.') ? name.length - 1 : name.length;
  return bare <= MAX_NAME && LABELS.test(name);
}

/**
 * A name as rules and resolvers compare it: lower case, without the trailing dot of a
 * fully qualified name. `WWW.Example.COM.` is the same host as www.example.com to every
 * resolver, so it must meet the same rules and the same dns.hosts entry.
 */
export function domainOf(name: string): string {
  const lower = name.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}
