import { request, type IncomingMessage, type ServerResponse } from 'node:http';
import { openTcpFlow } from '../flows/flow-opener.js';
import { relayResult } from '../flows/flow-result.js';
import { socketMeter } from '../flows/socket-meter.js';
import { UpgradeNotForwarded, writeAnswerHead } from './http-answer.js';
import { forwardHeaders } from './http-headers.js';
import { answerStatus, failureStatus, PROXY_AUTHENTICATE } from './http-replies.js';
import type { InboundEnv } from './inbound-env.js';
import { proxyAuth } from './http-proxy-auth.js';
import { absoluteTarget } from './http-target.js';
import { clientShare } from './client-share.js';
import { peerOf } from './tcp-listener.js';

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
    answerStatus(res, status, headers);
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
  // The one way out for an origin that fails or answers what cannot be passed on: a
  // 502 while nothing of its answer has gone to the client, else a cut connection.
  const fail = (err: Error): void => {
    if (remoteError || done) return;
    remoteError = err;
    upstream.destroy();
    answerStatus(res, 502);
  };
  outgoing.on('response', (answer) => {
    answer.on('error', fail);
    const unusable = writeAnswerHead(res, answer);
    if (unusable) return fail(unusable);
    answer.pipe(res);
  });
  // A 101 with Upgrade and Connection: upgrade comes here instead of as a response.
  outgoing.on('upgrade', () => fail(new UpgradeNotForwarded()));
  outgoing.on('error', fail);
  res.on('close', finish);
  req.pipe(outgoing);
}
