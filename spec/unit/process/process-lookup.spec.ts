import { spawn } from 'node:child_process';
import net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { procAddress } from '../../../actors/process/proc-net.js';
import { ProcessLookup } from '../../../actors/process/process-lookup.js';
import { acceptedFrom, FakeProc } from './fake-proc.js';

const SERVER = { ip: '127.0.0.1', port: 1080 };
const CLIENT = { ip: '127.0.0.1', port: 40000 };
const KEY4: [string, string] = [procAddress(CLIENT.ip, CLIENT.port, 4), procAddress(SERVER.ip, SERVER.port, 4)];

function fakeWithClient(uid = 1000): FakeProc {
  const proc = new FakeProc();
  proc.table('tcp', [[...KEY4, uid, 777]]);
  proc.process(10, { comm: 'sshd', exe: '/usr/sbin/sshd', sockets: [5, 6] });
  proc.process(42, { comm: 'curl', exe: '/usr/bin/curl', sockets: [9, 777] });
  return proc;
}

test('finds the process, its name and executable behind a loopback client', async () => {
  const proc = fakeWithClient();
  const lookup = new ProcessLookup({ procRoot: proc.root, uid: 1000 });
  assert.equal(await lookup.lookup(acceptedFrom(CLIENT, SERVER)), { process_id: 42, process_name: 'curl', process_path: '/usr/bin/curl' });
  proc.remove();
});

test('finds an IPv4 client on a dual-stack socket in tcp6', async () => {
  const proc = new FakeProc();
  proc.table('tcp6', [[procAddress('::ffff:127.0.0.1', CLIENT.port, 6), procAddress('::ffff:127.0.0.1', SERVER.port, 6), 0, 555]]);
  proc.process(7, { comm: 'java', sockets: [555] });
  const lookup = new ProcessLookup({ procRoot: proc.root, uid: 0 });
  assert.equal(await lookup.lookup(acceptedFrom(CLIENT, { ip: '::ffff:127.0.0.1', port: SERVER.port })), { process_id: 7, process_name: 'java' });
  proc.remove();
});

test('answers null for a client on another machine without reading procfs', async () => {
  const proc = fakeWithClient();
  const lookup = new ProcessLookup({ procRoot: proc.root, uid: 1000 });
  proc.remove();
  assert.is(await lookup.lookup(acceptedFrom({ ip: '192.0.2.10', port: 40000 }, SERVER)), null);
});

test("answers null for another user's socket unless the node runs as root", async () => {
  const proc = fakeWithClient(0);
  assert.is(await new ProcessLookup({ procRoot: proc.root, uid: 1000 }).lookup(acceptedFrom(CLIENT, SERVER)), null);
  assert.is((await new ProcessLookup({ procRoot: proc.root, uid: 0 }).lookup(acceptedFrom(CLIENT, SERVER)))?.process_id, 42);
  proc.remove();
});

test('answers null when the connection or its process is gone, and when there is no procfs', async () => {
  const proc = new FakeProc();
  proc.table('tcp', [[...KEY4, 1000, 777]]);
  assert.is(await new ProcessLookup({ procRoot: proc.root, uid: 1000 }).lookup(acceptedFrom(CLIENT, SERVER)), null, 'no process holds it');
  proc.table('tcp', []);
  assert.is(await new ProcessLookup({ procRoot: proc.root, uid: 1000 }).lookup(acceptedFrom(CLIENT, SERVER)), null, 'not in the table');
  proc.remove();
  assert.is(await new ProcessLookup({ procRoot: proc.root, uid: 1000 }).lookup(acceptedFrom(CLIENT, SERVER)), null, 'no procfs');
});

test('finds a socket past the first piece of a large table', async () => {
  const proc = new FakeProc();
  const filler = Array.from({ length: 4000 }, (_, i): [string, string, number, number] => [procAddress('127.0.0.1', 1024 + i, 4), KEY4[1], 1000, 0]);
  proc.table('tcp', [...filler, [...KEY4, 1000, 777]]);
  proc.process(42, { comm: 'curl', sockets: [777] });
  assert.is((await new ProcessLookup({ procRoot: proc.root, uid: 1000 }).lookup(acceptedFrom(CLIENT, SERVER)))?.process_name, 'curl');
  proc.remove();
});

test('leaves out the name and path it cannot read', async () => {
  const proc = new FakeProc();
  proc.table('tcp', [[...KEY4, 1000, 777]]);
  proc.process(42, { sockets: [777] });
  assert.equal(await new ProcessLookup({ procRoot: proc.root, uid: 1000 }).lookup(acceptedFrom(CLIENT, SERVER)), { process_id: 42 });
  proc.remove();
});

test('looks a client socket up once', async () => {
  const proc = fakeWithClient();
  const lookup = new ProcessLookup({ procRoot: proc.root, uid: 1000 });
  const socket = acceptedFrom(CLIENT, SERVER);
  const first = await lookup.lookup(socket);
  proc.remove();
  assert.is(await lookup.lookup(socket), first, 'the second request of a keep-alive client reuses the answer');
});

test('paces its passes over procfs, serving what waited in one pass', async () => {
  const proc = new FakeProc();
  const others = [40001, 40002].map((port) => ({ ip: '127.0.0.1', port }));
  proc.table('tcp', [[...KEY4, 1000, 777], ...others.map((o, i): [string, string, number, number] => [procAddress(o.ip, o.port, 4), KEY4[1], 1000, 888 + i])]);
  proc.process(42, { comm: 'curl', sockets: [777, 888, 889] });
  const lookup = new ProcessLookup({ procRoot: proc.root, uid: 1000, minIntervalMs: 400 });
  const started = Date.now();
  assert.is((await lookup.lookup(acceptedFrom(CLIENT, SERVER)))?.process_id, 42);
  const later = await Promise.all(others.map((o) => lookup.lookup(acceptedFrom(o, SERVER))));
  const second = Date.now() - started;
  assert.equal(later.map((f) => f?.process_id), [42, 42]);
  assert.ok(second >= 390, `the next pass waits for the interval (${second} ms)`);
  lookup.close();
  proc.remove();
});

test('answers null once closed', async () => {
  const proc = fakeWithClient();
  const lookup = new ProcessLookup({ procRoot: proc.root, uid: 1000 });
  lookup.close();
  assert.is(await lookup.lookup(acceptedFrom(CLIENT, SERVER)), null);
  proc.remove();
});

test('serves several lookups at once', async () => {
  const proc = new FakeProc();
  const other = { ip: '127.0.0.1', port: 40001 };
  proc.table('tcp', [
    [...KEY4, 1000, 777],
    [procAddress(other.ip, other.port, 4), KEY4[1], 1000, 888],
  ]);
  proc.process(42, { comm: 'curl', sockets: [777] });
  proc.process(43, { comm: 'wget', sockets: [888] });
  const lookup = new ProcessLookup({ procRoot: proc.root, uid: 1000 });
  const found = await Promise.all([lookup.lookup(acceptedFrom(CLIENT, SERVER)), lookup.lookup(acceptedFrom(other, SERVER))]);
  assert.equal(found.map((f) => f?.process_name), ['curl', 'wget']);
  proc.remove();
});

test('finds a real curl connecting to a local server', async () => {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
  const child = spawn('curl', ['--silent', '--max-time', '5', `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/`], { stdio: 'ignore' });
  const socket = await accepted;
  const info = await new ProcessLookup().lookup(socket);
  socket.destroy();
  server.close();
  child.kill();
  assert.equal(info, { process_id: child.pid, process_name: 'curl', process_path: '/usr/bin/curl' });
});

test.run();
