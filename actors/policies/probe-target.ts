import type { Endpoint } from '../../streams/contract.js';
import { shownUrl } from '../net/shown-url.js';
import { WeirError } from '../errors/weir-error.js';

/** Where a url_test probe goes and what it asks for, parsed once from the group's `url`. */
export interface ProbeTarget {
  /** Host and port each member dials. */
  endpoint: Endpoint;
  /** https probes run TLS (with certificate checks) over the member's connection. */
  tls: boolean;
  /** The `Host` header: host with the port when it is not the default. */
  hostHeader: string;
  /** Path and query of the request line: the query in full, whatever secret it carries. */
  requestPath: string;
  /**
   * The url as events and answers show it: what is probed (no user:password part, which
   * is never sent), its query values hidden by shownUrl.
   */
  publicUrl: string;
}

export class ProbeUrlError extends WeirError<'PROBE_URL_UNSUPPORTED'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('PROBE_URL_UNSUPPORTED', message, options);
  }
}

export function probeTarget(url: string): ProbeTarget {
  const u = new URL(url);
  const tls = u.protocol === 'https:';
  if (!tls && u.protocol !== 'http:') throw new ProbeUrlError(`probe url must be http:// or https://, not ${u.protocol}`);
  u.username = '';
  u.password = '';
  return {
    // WHATWG keeps IPv6 literals bracketed in `hostname`; a dial wants them bare.
    endpoint: { host: u.hostname.replace(/^\[(.*)\]$/, '$1'), port: u.port ? Number(u.port) : tls ? 443 : 80 },
    tls,
    hostHeader: u.host,
    requestPath: `${u.pathname}${u.search}`,
    publicUrl: shownUrl(u.href),
  };
}
