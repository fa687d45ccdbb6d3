const STATUS_LINE = /^HTTP\/1\.[01] (\d{3})(?: [^\r\n]*)?$/;

/**
 * The status code of the HTTP/1.0 or HTTP/1.1 status line that starts `head` (up to
 * its CRLF), or null when it is not one. The reason phrase is not kept: it is the
 * peer's own text, which may echo what it was sent (a Proxy-Authorization), and
 * messages go to events and logs.
 */
export function statusCodeOf(head: string): number | null {
  const end = head.indexOf('\r\n');
  const match = STATUS_LINE.exec(end === -1 ? head : head.slice(0, end));
  return match ? Number(match[1]) : null;
}
