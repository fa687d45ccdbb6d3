// Child process entry: the smallest SOCKS5 relay Node can run (no-auth CONNECT to IPv4,
// then socket.pipe both ways). It is the ceiling weir is measured against.
import net from 'node:net';

const SUCCEEDED = Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
const UNSUPPORTED = Buffer.from([5, 7, 0, 1, 0, 0, 0, 0, 0, 0]);
const UNREACHABLE = Buffer.from([5, 4, 0, 1, 0, 0, 0, 0, 0, 0]);

function relay(client: net.Socket, host: string, port: number, early: Buffer): void {
  const remote = net.connect({ host, port, noDelay: true });
  let connected = false;
  remote.on('error', () => (connected ? client.destroy() : client.end(UNREACHABLE)));
  client.on('error', () => remote.destroy());
  remote.once('connect', () => {
    connected = true;
    client.write(SUCCEEDED);
    if (early.length > 0) remote.write(early);
    client.pipe(remote);
    remote.pipe(client);
  });
}

function handshake(client: net.Socket): void {
  let buffered = Buffer.alloc(0);
  let greeted = false;
  const onData = (chunk: Buffer): void => {
    buffered = Buffer.concat([buffered, chunk]);
    if (!greeted) {
      const methods = buffered[1];
      if (methods === undefined || buffered.length < 2 + methods) return;
      buffered = buffered.subarray(2 + methods);
      greeted = true;
      client.write(Buffer.from([5, 0]));
    }
    if (buffered.length < 10) return;
    // Stop reading until the remote is connected; pipe() resumes.
    client.pause();
    client.off('data', onData);
    if (buffered[1] !== 1 || buffered[3] !== 1) {
      client.end(UNSUPPORTED);
      return;
    }
    const host = `${buffered[4]}.${buffered[5]}.${buffered[6]}.${buffered[7]}`;
    relay(client, host, buffered.readUInt16BE(8), buffered.subarray(10));
  };
  client.on('data', onData);
}

const port = Number(process.argv[2]);
const server = net.createServer({ noDelay: true }, (client) => {
  client.on('error', () => client.destroy());
  handshake(client);
});
server.listen({ host: '127.0.0.1', port, backlog: 4096 });
