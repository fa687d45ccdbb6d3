import { request, type IncomingMessage, type ServerResponse } from 'node:http';
import { openTcpFlow } from '../flows/flow-opener.js';
import { relayResult } from '../flows/flow-result.js';
import { UpgradeNotForwarded, writeAnswerHead } from './http-answer.js';
import { cutConnection, ExchangeEnd } from './http-exchange.js';
import { forwardTraffic } from './http-forward-traffic.js';
import { originRequestHeaders } from './http-headers.js';
import { answerStatus, failureStatus, PROXY_AUTHENTICATE } from './http-replies.js';
import type { InboundEnv } from './inbound-env.js';
import { proxyAuth } from './http-proxy-auth.js';
import { absoluteTarget } from './http-target.js';
import { clientShare } from './client-share.js';
import { peerOf } from './tcp-listener.js';

/**
 * Plain HTTP forwarding (absolute-form requests). Each request is one flow with its
 * own upstream connection; the client connection stays keep-alive. bytes_down is what
 * the origin sent (status line, headers and body), bytes_up what was sent to it, each
 * as far as it was relayed (forwardTraffic). The flow completes once, when its
 * exchange with the client ends (ExchangeEnd), whatever ended it: the answer sent,
 * the client gone, the origin's failure answered with 502.
 */
export async function handleForward(env: InboundEnv, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const client = req.socket;
  const share = clientShare(client);
  const exchange = new ExchangeEnd(res, client);
  // A refusal's bytes belong to no flow; either way the next request counts from here.
  // Marked when the answer is all written, ahead of Node's own 'finish' listener, which
  // starts the answer queued behind it on a pipelined connection: marked at the close
  // that follows, a queued answer's bytes fell in no flow. An exchange that never
  // finishes (the client left, the flow closed) is marked at its end. An answer that
  // came before its request was all read (dropRest) is marked once the rest is read,
  // which the next request would otherwise count.
  const ended = (): void => {
    if (req.complete || client.destroyed) share.ended();
    else req.once('end', share.ended);
  };
  res.prependOnceListener('finish', ended);
  exchange.onCut(ended);
  void exchange.over.then(ended);
  const parsed = absoluteTarget(req.url);
  if (!parsed) return answerStatus(res, 400);
  const auth = proxyAuth(env, req);
  if (!auth) return answerStatus(res, 407, PROXY_AUTHENTICATE);
  const flow = await openTcpFlow(
    env.flows,
    { inbound: env.inbound, auth, source: peerOf(client), target: parsed.target, client, clientSpan: share.span, left: exchange.over },
    { blocked: () => answerStatus(res, 403), failed: (f) => answerStatus(res, failureStatus(f)) },
  );
  if (!flow) return;
  const upstream = flow.dial.socket;
  const traffic = forwardTraffic(client, upstream, flow.dial.handshake, share.span, res);
  let remoteError: Error | null = null;
  exchange.onCut(traffic.freeze);
  void exchange.over.then(() => {
    traffic.freeze();
    dropRest(req);
    upstream.destroy();
    flow.actor.complete(env.flows.now(), relayResult(flow, remoteError));
  });
  // Closing the flow (flows.close, idle timeout, shutdown) cuts the client connection at
  // once, its exchange with it. A response queued behind another's cannot be skipped on
  // a pipelined connection, and its turn may never come: the requests ahead of it end
  // too, as when their client leaves.
  flow.actor.attach(traffic, () => {
    cutConnection(client);
    upstream.destroy();
    client.destroy();
  });
  if (exchange.ended) return;

  const outgoing = request({
    createConnection: () => upstream,
    method: req.method,
    path: parsed.path,
    headers: originRequestHeaders(req, parsed.authority),
    setHost: false,
  });
  // The one way out for an origin that fails or answers what cannot be passed on: a
  // 502 while nothing of its answer has gone to the client, else a cut connection.
  const fail = (err: Error): void => {
    if (remoteError || exchange.ended) return;
    remoteError = err;
    traffic.freeze();
    upstream.destroy();
    answerStatus(res, 502);
  };
  outgoing.on('response', (answer) => {
    answer.on('error', fail);
    traffic.answering(answer);
    const unusable = writeAnswerHead(res, answer);
    if (unusable) return fail(unusable);
    answer.pipe(res);
  });
  // The origin's 100 Continue to `Expect: 100-continue`, which is the origin's to give
  // (RFC 9110 §10.1.1): the client holds its body back until it comes. A refusal the
  // node can tell from the head (403, 407) went out instead, with no 100 before it.
  // An HTTP/1.0 client gets none: it knows no 1xx answers (RFC 9110 §15.2).
  if (req.httpVersion !== '1.0') outgoing.on('continue', () => res.writeContinue());
  // A 101 with Upgrade and Connection: upgrade comes here instead of as a response.
  outgoing.on('upgrade', () => fail(new UpgradeNotForwarded()));
  outgoing.on('error', fail);
  req.pipe(outgoing);
}

/**
 * Reads and drops what is left of a request whose exchange ended first (the origin
 * answered or failed before the body was all sent): its pipe to the origin is gone,
 * and left unread it would stall the client connection, whose next request then never
 * comes. Node does so itself only for a request nothing consumed.
 */
function dropRest(req: IncomingMessage): void {
  if (req.complete) return;
  req.unpipe();
  req.resume();
}
