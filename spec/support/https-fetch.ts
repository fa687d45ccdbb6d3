import https from 'node:https';
import { Readable } from 'node:stream';

/**
 * A `fetch` over node:https that trusts `ca` (and presents a client certificate when
 * given): Node's global fetch takes no CA without undici's Agent, which weir does not
 * depend on. Enough for an EventSource: method, headers, abort, a streamed body.
 */
export function httpsFetch(tls: { ca: Buffer; cert?: Buffer; key?: Buffer }): typeof fetch {
  return (input, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      const url = input instanceof Request ? input.url : String(input);
      const req = https.request(url, { method: init.method ?? 'GET', headers: Object.fromEntries(new Headers(init.headers)), ...tls }, (res) => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (typeof value === 'string') headers.set(name, value);
        resolve(new Response(Readable.toWeb(res) as ReadableStream<Uint8Array>, { status: res.statusCode ?? 0, headers }));
      });
      init.signal?.addEventListener('abort', () => req.destroy(new Error('aborted')), { once: true });
      req.once('error', reject);
      req.end();
    });
}
