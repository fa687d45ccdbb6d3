import type net from 'node:net';
import { ByteReader, bridge, serve, type Loopback } from './loopback.js';

export interface FakeSocksOptions {
  /** Require username/password (RFC 1929) with these credentials. */
  user?: { username: string; password: string };
  /** A SOCKS5 reply code other than 0 fails the CONNECT with it. */
  reply?: number;
  /** Bytes written in the same write as the success reply: the tunnel's first bytes. */
  afterReply?: string;
  /** Answers the greeting with these bytes and closes instead of speaking SOCKS5. */
  greetingAnswer?: Buffer;
  /** Chooses this method whatever the client offered; username/password is then refused. */
  chooseMethod?: number;
  /** Answers the CONNECT with these bytes and closes (not a SOCKS5 reply, or not one the fake knows). */
  connectAnswer?: Buffer;
  /** Sent instead of the usual success reply, then the tunnel is relayed as after it. */
  successReply?: Buffer;
}

export interface FakeSocks extends Loopback {
  /** host:port of every CONNECT request, in order. */
  requests: string[];
  /** Credentials presented, as `user:password`. */
  logins: string[];
}

const SUCCESS = Buffer.from([5, 0, 0, 1, 127, 0, 0, 1, 0, 0]);

async function readRequest(reader: ByteReader): Promise<{ host: string; port: number }> {
  const [, , , atyp] = await reader.take(4);
  let host: string;
  if (atyp === 1) host = [...(await reader.take(4))].join('.');
  else if (atyp === 3) host = (await reader.take((await reader.take(1))[0]!)).toString('latin1');
  else throw new Error(`fake socks: address type ${atyp} not scripted`);
  return { host, port: (await reader.take(2)).readUInt16BE(0) };
}

/** Reads a username/password request (RFC 1929) and records it as `user:password`. */
async function readLogin(fake: FakeSocks, reader: ByteReader): Promise<string> {
  const [, ulen] = await reader.take(2);
  const username = (await reader.take(ulen!)).toString();
  const password = (await reader.take((await reader.take(1))[0]!)).toString();
  fake.logins.push(`${username}:${password}`);
  return `${username}:${password}`;
}

async function converse(fake: FakeSocks, opts: FakeSocksOptions, client: net.Socket): Promise<void> {
  const reader = new ByteReader(client);
  const [, count] = await reader.take(2);
  const methods = [...(await reader.take(count!))];
  if (opts.greetingAnswer) {
    client.end(opts.greetingAnswer);
    return;
  }
  if (opts.chooseMethod !== undefined) {
    client.write(Buffer.from([5, opts.chooseMethod]));
    if (opts.chooseMethod === 2) await readLogin(fake, reader);
    return void client.end(Buffer.from([1, 1]));
  }
  if (opts.user) {
    if (!methods.includes(2)) return void client.end(Buffer.from([5, 0xff]));
    client.write(Buffer.from([5, 2]));
    const login = await readLogin(fake, reader);
    if (login !== `${opts.user.username}:${opts.user.password}`) return void client.end(Buffer.from([1, 1]));
    client.write(Buffer.from([1, 0]));
  } else {
    client.write(Buffer.from([5, 0]));
  }
  const dest = await readRequest(reader);
  fake.requests.push(`${dest.host}:${dest.port}`);
  if (opts.reply) return void client.end(Buffer.from([5, opts.reply, 0, 1, 0, 0, 0, 0, 0, 0]));
  if (opts.connectAnswer) return void client.end(opts.connectAnswer);
  bridge(reader, client, dest, Buffer.concat([opts.successReply ?? SUCCESS, Buffer.from(opts.afterReply ?? '')]));
}

/** A scripted SOCKS5 server that relays CONNECTs for real. */
export async function fakeSocks(opts: FakeSocksOptions = {}): Promise<FakeSocks> {
  const requests: string[] = [];
  const logins: string[] = [];
  const fake: FakeSocks = Object.assign(
    await serve((client) => {
      converse(fake, opts, client).catch(() => client.destroy());
    }),
    { requests, logins },
  );
  return fake;
}
