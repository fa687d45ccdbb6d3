import http from 'node:http';
import https from 'node:https';

/** What a delivery attempt's verdict needs of the answer. */
export interface WebhookAnswer {
  status: number;
  retryAfter: string | null;
}

/**
 * Kept-alive connections, shared by every sink of the process. An idle one does not
 * hold the process open (the agent unrefs it).
 */
const AGENTS = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

/** Bytes of an answer's body read and dropped so that its connection can be reused; past them it is cut. */
const DRAINED_MAX = 64 * 1024;

/**
 * POSTs `body` as it is (node:http writes the bytes without copying them, where fetch
 * re-encodes and copies a request body through web streams) and resolves at the
 * answer's status. Rejects on a network error, or with a TimeoutError once timeoutMs
 * passed without an answer. Redirects are answers, never followed.
 */
export function postBytes(url: string, headers: Record<string, string>, body: Buffer, timeoutMs: number): Promise<WebhookAnswer> {
  const secure = url.startsWith('https:');
  const request = secure ? https.request : http.request;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: secure ? AGENTS.https : AGENTS.http,
        headers: { ...headers, 'content-length': String(body.length) },
      },
      (res) => {
        drainAnswer(res);
        resolve({ status: res.statusCode ?? 0, retryAfter: rawHeader(res.rawHeaders, 'retry-after') });
      },
    );
    // One plain timer for the whole attempt, the answer's body included (AbortSignal.timeout
    // costs an event target and a weak timer per request); the request closes when its
    // answer has been read or cut.
    const deadline = setTimeout(() => req.destroy(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
    deadline.unref();
    req.on('close', () => clearTimeout(deadline));
    req.on('error', reject);
    req.end(body);
  });
}

/** A header's first value from the answer's raw name/value list: res.headers would build an object of them all. */
function rawHeader(raw: readonly string[], name: string): string | null {
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if ((raw[i] as string).toLowerCase() === name) return raw[i + 1] as string;
  }
  return null;
}

/**
 * Reads an answer's body into nothing: the verdict is the status alone. Bounded, so
 * that a receiver's endless body cannot grow the node, nor a trickled one hold the
 * delivery until its timeout fails it.
 */
function drainAnswer(res: http.IncomingMessage): void {
  let read = 0;
  // A body cut by the timeout or the receiver changes nothing: the status was the answer.
  res.on('error', () => undefined);
  res.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > DRAINED_MAX) res.destroy();
  });
}
