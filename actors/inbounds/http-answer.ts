import type { IncomingMessage, ServerResponse } from 'node:http';
import { forwardHeaders } from './http-headers.js';
import { WeirError } from '../errors/weir-error.js';

/**
 * An origin answered a plain forwarded request with 101 Switching Protocols. The
 * Upgrade header is hop-by-hop and never forwarded, so the client asked for no other
 * protocol, and this forwarding relays none: the answer is the origin's error.
 */
export class UpgradeNotForwarded extends WeirError<'HTTP_UPGRADE_NOT_FORWARDED'> {
  constructor() {
    super('HTTP_UPGRADE_NOT_FORWARDED', 'the origin switched protocols on a plain forwarded request');
  }
}

/**
 * Writes the head of the origin's answer to the client, or returns why it cannot be.
 * Node's http client skips interim 1xx answers but passes a 101 on as the answer, and
 * ServerResponse.writeHead throws on a status outside 100-999 or a control character
 * in the reason phrase or a header: all of it is the origin's to send, so none of it
 * may throw out of the relay.
 */
export function writeAnswerHead(res: ServerResponse, answer: IncomingMessage): Error | null {
  if (answer.statusCode === 101) return new UpgradeNotForwarded();
  try {
    res.writeHead(answer.statusCode ?? 0, answer.statusMessage, forwardHeaders(answer));
    return null;
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
}
