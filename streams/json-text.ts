/** A number as JSON.stringify writes it (a non-finite one as null), without a call into it. */
export function jsonNumber(value: number | null): string {
  return value !== null && Number.isFinite(value) ? `${value}` : 'null';
}

/**
 * Whether JSON.stringify writes `value` as it is between quotes: nothing in it needs
 * escaping (no control character, quote, backslash or surrogate, which JSON.stringify
 * writes as \u escapes when unpaired). Tags, hosts and ids almost always are, and the
 * check costs a fraction of a call into JSON.stringify.
 */
export function plainString(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return false;
  }
  return true;
}
