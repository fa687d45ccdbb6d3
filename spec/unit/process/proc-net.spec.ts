import fs from 'node:fs';
import net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { plainIp } from '../../../actors/net/plain-ip.js';
import { connectionKeys, findProcSockets, procAddress } from '../../../actors/process/proc-net.js';

test('writes addresses the way /proc/net/tcp and tcp6 do', () => {
  assert.is(procAddress('127.0.0.1', 8080, 4), '0100007F:1F90');
  assert.is(procAddress('10.1.2.3', 1, 4), '0302010A:0001');
  assert.is(procAddress('::1', 443, 6), '00000000000000000000000001000000:01BB');
  assert.is(procAddress('::ffff:127.0.0.1', 80, 6), '0000000000000000FFFF00000100007F:0050');
  assert.is(procAddress('2001:db8::1', 65535, 6), 'B80D0120000000000000000001000000:FFFF');
});

test('plainIp unwraps IPv4-mapped IPv6 only', () => {
  assert.is(plainIp('::ffff:192.0.2.1'), '192.0.2.1');
  assert.is(plainIp('::1'), '::1');
  assert.is(plainIp('192.0.2.1'), '192.0.2.1');
});

test('an IPv4 connection is looked for in tcp and, as mapped addresses, in tcp6', () => {
  assert.equal(connectionKeys({ ip: '127.0.0.1', port: 40000 }, { ip: '::ffff:127.0.0.1', port: 1080 }), {
    v4: '0100007F:9C40 0100007F:0438',
    v6: '0000000000000000FFFF00000100007F:9C40 0000000000000000FFFF00000100007F:0438',
  });
  assert.equal(connectionKeys({ ip: '::1', port: 40000 }, { ip: '::1', port: 1080 }), {
    v6: '00000000000000000000000001000000:9C40 00000000000000000000000001000000:0438',
  });
});

const TABLE = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:0438 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1111 1 0 100 0 0 10 0
   1: 0100007F:9C40 0100007F:0438 01 00000000:00000000 00:00000000 00000000  1000        0 2222 1 0 20 4 30 10 -1
   2: 0100007F:9C41 0100007F:0438 06 00000000:00000000 03:00000D2A 00000000     0        0 0 3 0
`;

test('finds the wanted sockets with their inode and uid, skipping inode 0', () => {
  const found = findProcSockets(TABLE, new Set(['0100007F:9C40 0100007F:0438', '0100007F:9C41 0100007F:0438', 'X Y']));
  assert.equal([...found], [['0100007F:9C40 0100007F:0438', { inode: 2222, uid: 1000 }]]);
  assert.is(findProcSockets('', new Set(['0100007F:9C40 0100007F:0438'])).size, 0);
});

test('a live loopback connection is in this machine\'s /proc/net/tcp under its client key', async () => {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
  const client = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  const socket = await accepted;
  const keys = connectionKeys(
    { ip: socket.remoteAddress!, port: socket.remotePort! },
    { ip: socket.localAddress!, port: socket.localPort! },
  );
  const found = findProcSockets(fs.readFileSync('/proc/net/tcp', 'latin1'), new Set([keys.v4!]));
  assert.ok((found.get(keys.v4!)?.inode ?? 0) > 0, `the client socket ${keys.v4} has an inode`);
  client.destroy();
  socket.destroy();
  server.close();
});

test.run();
