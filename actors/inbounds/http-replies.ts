import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FlowFailureError } from '../errors/flow-failure.js';
import { endRefused } from '../net/end-refused.js';

/** Status for a failed dial: 504 when the remote, or a hop on the way, did not answer in time, else 502. */
export function failureStatus(failure: FlowFailureError): number {
  return failure.code === 'DIAL_TIMEOUT' || failure.code === 'HOP_TIMEOUT' ? 504 : 502;
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  403: 'Forbidden',
  405: 'Method Not Allowed',
  407: 'Proxy Authentication Required',
  408: 'Request Timeout',
  431: 'Request Header Fields Too Large',
  502: 'Bad Gateway',
  504: 'Gateway Timeout',
};

/** Writes a complete short HTTP/1.1 answer on a raw socket and ends it (endRefused). */
export function endWithStatus(socket: Duplex, status: number, extraHeaders: Record<string, string> = {}): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = statusBody(status);
  const headers = { 'Content-Type': 'text/plain', 'Content-Length': String(body.length), Connection: 'close', ...extraHeaders };
  const head = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  endRefused(socket, `HTTP/1.1 ${status} ${REASONS[status] ?? ''}\r\n${head}\r\n${body}`);
}

/**
 * Answers a forwarded request with a short status of the proxy's own, or cuts the
 * client connection when part of another answer went out already. Reason phrase and
 * length are given, not left to Node: a writeHead that threw on an origin's answer has
 * already taken that answer's reason phrase and Content-Length as the response's own.
 */
export function answerStatus(res: ServerResponse, status: number, extraHeaders: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = statusBody(status);
  res.writeHead(status, REASONS[status] ?? '', { 'Content-Type': 'text/plain', 'Content-Length': String(body.length), ...extraHeaders });
  res.end(body);
}

export const PROXY_AUTHENTICATE = { 'Proxy-Authenticate': 'Basic realm="weir"' };

function statusBody(status: number): string {
  return `${status} ${REASONS[status] ?? ''}\n`;
}
