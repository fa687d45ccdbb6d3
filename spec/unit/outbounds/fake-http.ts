import type net from 'node:net';
import { ByteReader, bridge, serve, type Loopback } from './loopback.js';

export interface FakeHttpOptions {
  /** The whole response head to send, or how to make it from the request head; a 2xx status bridges the tunnel after it. Default `HTTP/1.1 200 OK`. */
  answer?: string | ((head: string) => string);
  /** Bytes written in the same write as the answer head. */
  afterHead?: string;
  /** Closes after reading the request without answering. */
  hangUp?: boolean;
  /** Reads the request and never answers. */
  silent?: boolean;
}

export interface FakeHttp extends Loopback {
  /** Every CONNECT request head received, verbatim. */
  heads: string[];
}

async function converse(fake: FakeHttp, opts: FakeHttpOptions, client: net.Socket): Promise<void> {
  const reader = new ByteReader(client);
  const head = await reader.until('\r\n\r\n');
  fake.heads.push(head);
  if (opts.silent) return;
  if (opts.hangUp) return void client.end();
  const text = typeof opts.answer === 'function' ? opts.answer(head) : (opts.answer ?? 'HTTP/1.1 200 OK\r\n\r\n');
  const answer = Buffer.from(text + (opts.afterHead ?? ''), 'latin1');
  if (!/^HTTP\/1\.[01] 2/.test(text)) return void client.end(answer);
  const [host = '', port = ''] = /^CONNECT (\S+):(\d+) /.exec(head)?.slice(1) ?? [];
  bridge(reader, client, { host, port: Number(port) }, answer);
}

/** A scripted HTTP CONNECT proxy that tunnels for real on a 2xx answer. */
export async function fakeHttp(opts: FakeHttpOptions = {}): Promise<FakeHttp> {
  const heads: string[] = [];
  const fake: FakeHttp = Object.assign(
    await serve((client) => {
      converse(fake, opts, client).catch(() => client.destroy());
    }),
    { heads },
  );
  return fake;
}
