import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { endRefused } from '../net/end-refused.js';
import { answersOwed } from './http-exchange.js';
import { endWithStatus } from './http-replies.js';
import { handleConnect } from './http-connect.js';
import { handleForward } from './http-forward.js';
import type { InboundEnv } from './inbound-env.js';

/** Largest request head accepted from a client; larger ones get 431. */
const MAX_HEADER_BYTES = 16 * 1024;

/**
 * The HTTP proxy protocol on connections handed to it (it never listens itself, so
 * the mixed inbound can pass the connections it recognises as HTTP). Node's parser
 * does the framing; garbage and oversized heads get 400/431 and a close.
 */
export function httpProxyServer(env: InboundEnv): Server {
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES, requestTimeout: 0 });
  const guard = (what: string, work: Promise<void>, socket: Socket): void => {
    work.catch((err: unknown) => {
      env.log.debug({ err }, `${what} failed`);
      socket.destroy();
    });
  };
  server.on('connect', (req, socket: Socket, head: Buffer) => {
    headArrived(socket);
    guard('http connect', handleConnect(env, req, socket, head), socket);
  });
  const forward = (req: IncomingMessage, res: ServerResponse): void => {
    headArrived(req.socket);
    guard('http forward', handleForward(env, req, res), req.socket);
  };
  server.on('request', forward);
  // Listened for, so that Node does not answer `Expect: 100-continue` itself: the
  // origin does, or the node's own refusal (handleForward).
  server.on('checkContinue', forward);
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (refused.has(socket)) return;
    refused.add(socket);
    env.log.debug({ code: err.code }, 'malformed http request');
    refuse(socket, err.code);
  });
  return server;
}

/** Connections refused already: the parser goes on failing on each later chunk. */
const refused = new WeakSet<Socket>();

/**
 * Refuses what the parser could not read, after the answers still owed to requests it
 * read before (pipelined ahead of it): written at once, the refusal went out in place
 * of an answer its flow bills. Bytes after a request that said Connection: close are
 * no request at all (RFC 9112 §9.6): the connection just closes after the answers.
 * When the error lies in a request still being read (its body), no answer is owed in
 * full and it is refused at once, as a request body that cannot be read never ends.
 */
function refuse(socket: Socket, code: string | undefined): void {
  const owed = answersOwed(socket);
  const status = code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  if (!owed) return endWithStatus(socket, status);
  void owed.then(() => (code === 'HPE_CLOSED_CONNECTION' ? endRefused(socket) : endWithStatus(socket, status)));
}

/** The deadline of each connection's first request head; cleared when it is parsed. */
const headDeadlines = new WeakMap<Socket, NodeJS.Timeout>();

/**
 * Hands a connection to the HTTP proxy server, which must have its first request head
 * within `timeoutMs` or gets 408 and is closed. Node's own headersTimeout does not
 * serve here: it is enforced only for connections of a server that listens itself.
 */
export function handleHttp(server: Server, socket: Socket, timeoutMs: number): void {
  const timer = setTimeout(() => endWithStatus(socket, 408), timeoutMs);
  headDeadlines.set(socket, timer);
  socket.once('close', () => headArrived(socket));
  server.emit('connection', socket);
}

function headArrived(socket: Socket): void {
  clearTimeout(headDeadlines.get(socket));
  headDeadlines.delete(socket);
}
