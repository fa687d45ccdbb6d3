/** What stands for each hidden part of a shown URL; plain letters, so it needs no percent-encoding. */
const URL_REDACTED = 'REDACTED';

/**
 * A URL as answers, logs and events show it: a Webhook sink's, a url_test group's probe
 * URL. The server behind it may take its secret in the URL (`?token=…`, `user:pass@`), so the user name, password, every query value and the
 * fragment are replaced by URL_REDACTED; scheme, host, port, path and the query's
 * parameter names stay, so the operator can still tell which URL it is. The user name
 * goes too: some services take the key itself as the user name. A query part without
 * `=` may be a bare key, so it is hidden whole. A string that is no URL is hidden whole:
 * nothing tells which part of it is secret. Never throws.
 */
export function shownUrl(url: string): string {
  if (!URL.canParse(url)) return URL_REDACTED;
  const u = new URL(url);
  if (u.username !== '') u.username = URL_REDACTED;
  if (u.password !== '') u.password = URL_REDACTED;
  if (u.search !== '') u.search = u.search.slice(1).split('&').map(shownParameter).join('&');
  if (u.hash !== '') u.hash = URL_REDACTED;
  return u.href;
}

function shownParameter(part: string): string {
  if (part === '') return part;
  const eq = part.indexOf('=');
  return eq < 0 ? URL_REDACTED : `${part.slice(0, eq)}=${URL_REDACTED}`;
}
