import net from 'node:net';
import tls from 'node:tls';

/**
 * The bytes of a real TLS ClientHello: node:tls connects to a local TCP server that
 * keeps everything it receives until the hello is complete (a record header says
 * how long), then closes. `servername` undefined sends no SNI.
 */
export async function captureClientHello(servername: string | undefined): Promise<Buffer> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const captured = new Promise<Buffer>((resolve, reject) => {
    server.once('connection', (socket) => {
      let bytes = Buffer.alloc(0);
      socket.on('data', (chunk: Buffer) => {
        bytes = Buffer.concat([bytes, chunk]);
        if (bytes.length >= 5 && bytes.length >= 5 + bytes.readUInt16BE(3)) {
          socket.destroy();
          resolve(bytes);
        }
      });
      socket.on('error', reject);
    });
  });
  const client = tls.connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false });
  client.on('error', () => undefined);
  try {
    return await captured;
  } finally {
    client.destroy();
    server.close();
  }
}

/** The same handshake message carried by two TLS records, split at `at` bytes of the body. */
export function splitIntoTwoRecords(hello: Buffer, at: number): Buffer {
  const body = hello.subarray(5);
  const record = (part: Buffer): Buffer => Buffer.concat([Buffer.from([0x16, 0x03, 0x01, part.length >> 8, part.length & 0xff]), part]);
  return Buffer.concat([record(body.subarray(0, at)), record(body.subarray(at))]);
}
