import dgram from 'node:dgram';
import { once } from 'node:events';
import { isIPv6 } from 'node:net';

export interface UdpEcho {
  host: string;
  port: number;
  /** Source address:port of every datagram received, in order. */
  sources: string[];
  close(): Promise<void>;
}

export interface UdpEchoOptions {
  /** @defaultValue 127.0.0.1 */
  host?: string;
  /** The answer to a datagram. @defaultValue the same bytes */
  answer?: (data: Buffer) => Buffer;
}

/** A UDP server on loopback that answers each datagram to its source. */
export async function startUdpEcho(opts: UdpEchoOptions = {}): Promise<UdpEcho> {
  const host = opts.host ?? '127.0.0.1';
  const answer = opts.answer ?? ((data: Buffer) => data);
  const socket = dgram.createSocket(isIPv6(host) ? 'udp6' : 'udp4');
  const sources: string[] = [];
  socket.on('message', (msg, rinfo) => {
    sources.push(`${rinfo.address}:${rinfo.port}`);
    socket.send(answer(msg), rinfo.port, rinfo.address);
  });
  socket.bind(0, host);
  await once(socket, 'listening');
  return {
    host,
    port: socket.address().port,
    sources,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
