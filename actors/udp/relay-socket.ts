import dgram from 'node:dgram';
import { isIP } from 'node:net';
import type { SocksTarget } from '../socks5/socks5-wire.js';
import { plainIp } from '../net/plain-ip.js';

export interface RelaySocket {
  socket: dgram.Socket;
  /** BND.ADDR:BND.PORT of the reply: where the client sends its datagrams. */
  bound: SocksTarget;
}

/**
 * Binds the association's relay socket on a fresh port of the address the client
 * reached the inbound on: the inbound's listen address, or for a wildcard listener
 * the interface the client came in by, which is one the client can send to.
 */
export function bindRelaySocket(localAddress: string): Promise<RelaySocket> {
  const host = plainIp(localAddress);
  const socket = dgram.createSocket(isIP(host) === 6 ? 'udp6' : 'udp4');
  return new Promise((resolve, reject) => {
    socket.once('error', (err) => {
      socket.close();
      reject(err);
    });
    // exclusive: in a worker of node.workers, a socket of its own, not one node:cluster shares through the hub.
    socket.bind({ port: 0, address: host, exclusive: true }, () => {
      socket.removeAllListeners('error');
      resolve({ socket, bound: { host, port: socket.address().port } });
    });
  });
}
