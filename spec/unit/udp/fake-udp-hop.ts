import dgram from 'node:dgram';
import net from 'node:net';
import { once } from 'node:events';
import { decodeUdpDatagram, encodeUdpHeader, type SocksTarget } from '../../../actors/socks5/socks5-wire.js';

export interface FakeUdpHopOptions {
  /** A REP other than 0 refuses the UDP ASSOCIATE with it. */
  reply?: number;
  /** BND.ADDR to answer with; the relay port is always the real one. @defaultValue 127.0.0.1 */
  boundHost?: string;
  /** How the hop's relay answers a datagram for `target`: framed datagrams to send back. @defaultValue an echo from target */
  answer?: (target: SocksTarget, data: Buffer) => Buffer[];
}

export interface FakeUdpHop {
  port: number;
  /** The command byte and DST of every request, as `cmd host:port`. */
  requests: string[];
  /** Every datagram the relay received, decoded. */
  datagrams: { target: SocksTarget; data: string; from: string }[];
  /** Ends every control connection, as a hop that drops its associations. */
  dropAssociations(): void;
  close(): Promise<void>;
}

/**
 * A scripted SOCKS5 hop (no authentication) that speaks UDP ASSOCIATE: its relay
 * socket stands in for the hop and the destinations at once, answering each datagram
 * with an echo framed with the destination as source.
 */
export async function fakeUdpHop(opts: FakeUdpHopOptions = {}): Promise<FakeUdpHop> {
  const relay = dgram.createSocket('udp4');
  relay.bind(0, '127.0.0.1');
  await once(relay, 'listening');
  const requests: string[] = [];
  const datagrams: FakeUdpHop['datagrams'] = [];
  const answer = opts.answer ?? ((target, data) => [Buffer.concat([encodeUdpHeader(target), data])]);
  relay.on('message', (msg, rinfo) => {
    const d = decodeUdpDatagram(msg);
    if (!d) return;
    datagrams.push({ target: d.target, data: d.data.toString(), from: `${rinfo.address}:${rinfo.port}` });
    for (const out of answer(d.target, d.data)) relay.send(out, rinfo.port, rinfo.address);
  });
  const controls = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    controls.add(socket);
    socket.on('close', () => controls.delete(socket));
    socket.on('error', () => socket.destroy());
    let stage = 0;
    socket.on('data', (chunk: Buffer) => {
      if (stage++ === 0) return void socket.write(Buffer.from([5, 0]));
      const request = decodeUdpDatagram(Buffer.concat([Buffer.from([0, 0, 0]), chunk.subarray(3)]));
      requests.push(`${chunk[1]} ${request?.target.host}:${request?.target.port}`);
      const rep = opts.reply ?? 0;
      const bound = encodeUdpHeader({ host: opts.boundHost ?? '127.0.0.1', port: relay.address().port }).subarray(3);
      socket.write(Buffer.concat([Buffer.from([5, rep, 0]), bound]));
      if (rep !== 0) socket.end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as net.AddressInfo).port,
    requests,
    datagrams,
    dropAssociations: () => {
      for (const socket of controls) socket.destroy();
    },
    close: async () => {
      for (const socket of controls) socket.destroy();
      relay.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
