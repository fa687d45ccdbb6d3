import { request, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { openTcpFlow } from '../flows/flow-opener.js';
import { relayResult } from '../flows/flow-result.js';
import { socketMeter } from '../flows/socket-meter.js';
import { failureStatus, PROXY_AUTHENTICATE } from './http-replies.js';
import type { InboundEnv } from './inbound-env.js';
import { proxyAuth } from './http-proxy-auth.js';
import { absoluteTarget } from './http-target.js';
import { clientShare } from './client-share.js';
import { peerOf } from './tcp-listener.js';

// Hop-by-hop headers (RFC 9110 §7.6.1) and the proxy's own: never forwarded.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/**
 * Plain HTTP forwarding (absolute-form requests). Each request is one flow with its
 * own upstream connection; the client connection stays keep-alive. bytes_down is what
 * the origin sent (status line, headers and body), bytes_up what was sent to it.
 */
export async function handleForward(env: InboundEnv, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const client = req.socket;
  const share = clientShare(client);
  // A refusal's bytes belong to no flow; the next request's counts start after them.
  const refuse = (status: number, headers?: Record<string, string>): void => {
    res.once('close', share.ended);
    respond(res, status, headers);
  };
  const parsed = absoluteTarget(req.url);
  if (!parsed) return refuse(400);
  const auth = proxyAuth(req, env.users);
  if (!auth) return refuse(407, PROXY_AUTHENTICATE);
  // Listened for from the start: a client that gives up while the flow opens closes
  // `res` before the relay below could see it, and its flow must still complete.
  let clientGone = false;
  res.once('close', () => (clientGone = true));
  const flow = await openTcpFlow(
    env.flows,
    { inbound: env.inbound, auth, source: peerOf(client), target: parsed.target, client },
    { blocked: () => refuse(403), failed: (f) => refuse(failureStatus(f)) },
  );
  if (!flow) return;
  const upstream = flow.dial.socket;
  let remoteError: Error | null = null;
  let done = false;
  const finish = (): void => {
    if (done) return;
    done = true;
    share.ended();
    upstream.destroy();
    flow.actor.complete(env.flows.now(), relayResult(flow, remoteError));
  };
  flow.actor.attach(socketMeter(client, upstream, flow.dial.handshake, share.base), () => {
    upstream.destroy();
    res.destroy();
  });
  if (clientGone) return finish();

  const outgoing = request({
    createConnection: () => upstream,
    method: req.method,
    path: parsed.path,
    headers: forwardHeaders(req),
    setHost: false,
  });
  outgoing.on('response', (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardHeaders(answer));
    answer.pipe(res);
    answer.on('error', (err) => {
      remoteError = err;
      res.destroy();
    });
  });
  outgoing.on('error', (err) => {
    remoteError ??= err;
    if (!res.headersSent) respond(res, 502);
    else res.destroy();
  });
  res.on('close', finish);
  req.pipe(outgoing);
}

function forwardHeaders(msg: IncomingMessage): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  const named = new Set(
    String(msg.headers.connection ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase()),
  );
  for (let i = 0; i < msg.rawHeaders.length; i += 2) {
    const name = msg.rawHeaders[i]!;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || named.has(lower)) continue;
    const prev = headers[name];
    const value = msg.rawHeaders[i + 1]!;
    headers[name] = prev === undefined ? value : ([] as string[]).concat(prev as string | string[], value);
  }
  return headers;
}

function respond(res: ServerResponse, status: number, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.writeHead(status, { 'Content-Type': 'text/plain', ...headers });
  res.end(`${status}\n`);
}
