import net from 'node:net';
import { z } from 'zod';

const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Where `s` holds a UTF-16 surrogate without its pair, which JSON (and so a config
 * file, `"\ud800"`) can carry but UTF-8 cannot: Redis keys and file names get U+FFFD in
 * its place (two names then meet in one), and encodeURIComponent throws.
 */
export function loneSurrogateAt(s: string): number | undefined {
  return LONE_SURROGATE.exec(s)?.index;
}

function loneSurrogateMessage(s: string): string {
  const at = loneSurrogateAt(s) ?? 0;
  const unit = s.charCodeAt(at).toString(16);
  return `must be well-formed Unicode: it has a lone UTF-16 surrogate (\\u${unit} at index ${at}), which Redis keys, file names and headers cannot carry`;
}

/**
 * A string the node puts into Redis keys, file names, URLs or headers, refused with a
 * lone surrogate. The message names the code unit and its index, never the value.
 */
export function wellFormedString() {
  return z.string().refine((s) => loneSurrogateAt(s) === undefined, { error: (iss) => loneSurrogateMessage(String(iss.input)) });
}

/**
 * A tag names an inbound, outbound or sink; routes and groups refer to parts by tag,
 * and a sink's tag names its Redis keys and embedded database.
 */
export const tagSchema = wellFormedString().min(1);

/** A file weir reads (a PEM), relative to the config file. */
export const pemPath = () => wellFormedString().min(1);

/**
 * The longest delay a timer takes: Node fires a longer one after 1 ms (with a
 * warning), so a huge timeout would act as almost none.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Milliseconds of a timeout or interval, from `min` up to what a timer can wait. */
export function timerMsSchema(min: number) {
  return z.number().int().min(min).max(MAX_TIMER_MS);
}

/** A listening port; 0 lets the system pick a free one. */
export const listenPortSchema = z.number().int().min(0).max(65535);

/** A port to dial: 0 cannot be dialled. */
export const dialPortSchema = z.number().int().min(1).max(65535);

export const ipSchema = z
  .string()
  .refine((s) => net.isIP(s) !== 0, 'must be an IP address')
  .meta({ anyOf: [{ format: 'ipv4' }, { format: 'ipv6' }] });

const HOSTNAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

/** A DNS name or an IP address (IPv6 without brackets). */
export function isHost(s: string): boolean {
  return net.isIP(s) !== 0 || HOSTNAME.test(s);
}

export const hostSchema = z.string().refine(isHost, 'must be a hostname or IP address');

function hasProtocol(s: string, protocols: readonly string[]): boolean {
  if (!URL.canParse(s)) return false;
  const url = new URL(s);
  return protocols.includes(url.protocol) && url.hostname !== '';
}

export const httpUrlSchema = z
  .string()
  .refine((s) => hasProtocol(s, ['http:', 'https:']), 'must be an http:// or https:// URL')
  .meta({ pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#]+' });

export function isRedisUrl(s: string): boolean {
  return hasProtocol(s, ['redis:', 'rediss:']);
}

/** Non-empty list of tags, as group members or chain hops. */
export const tagListSchema = z.array(tagSchema).min(1);

/**
 * Error for a `type`-keyed union whose `type` is missing or unknown: names the kind of
 * part and lists the allowed types, which zod hands over in `options`.
 */
export function unknownTypeError(kind: string): z.core.$ZodErrorMap {
  return (iss) => {
    if (iss.code !== 'invalid_union' || !Array.isArray(iss.options)) return undefined;
    const allowed = `(allowed: ${iss.options.join(', ')})`;
    const input = iss.input;
    const type: unknown = typeof input === 'object' && input !== null ? (input as { type?: unknown }).type : undefined;
    if (type === undefined) return `missing ${kind} type ${allowed}`;
    if (typeof type !== 'string') return `${kind} type must be a string ${allowed}`;
    return `unknown ${kind} type ${JSON.stringify(type)} ${allowed}`;
  };
}

/**
 * Options for an object-level refine that runs even when some fields failed, so one
 * pass reports every problem. The refine must therefore tolerate invalid field values.
 */
export function objectCheck(message: string, path?: PropertyKey[]) {
  return {
    message,
    ...(path === undefined ? {} : { path }),
    when: (payload: { value: unknown }) => typeof payload.value === 'object' && payload.value !== null,
  };
}
