import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sniffTlsSni } from '../../../actors/sniff/tls-sni.js';
import { captureClientHello, splitIntoTwoRecords } from './client-hello.js';

const withSni = captureClientHello('www.Example.test');
const withoutSni = captureClientHello(undefined);

test('reads the server name of a real ClientHello, in lower case', async () => {
  const hello = await withSni;
  assert.is(hello[0], 0x16, 'a TLS handshake record');
  assert.equal(sniffTlsSni(hello), { kind: 'host', host: 'www.example.test' });
});

test('asks for more bytes at every cut of the hello', async () => {
  const hello = await withSni;
  for (let n = 0; n < hello.length; n++) {
    assert.equal(sniffTlsSni(hello.subarray(0, n)), { kind: 'more' }, `first ${n} of ${hello.length} bytes`);
  }
});

test('reads a hello that spans two records', async () => {
  const hello = await withSni;
  const split = splitIntoTwoRecords(hello, 40);
  assert.equal(sniffTlsSni(split), { kind: 'host', host: 'www.example.test' });
  assert.equal(sniffTlsSni(split.subarray(0, 5 + 40 + 3)), { kind: 'more' }, 'the second record is not there yet');
});

test('finds no host in a hello without SNI', async () => {
  assert.equal(sniffTlsSni(await withoutSni), { kind: 'none' });
});

test('finds no host in bytes that are not a TLS handshake', () => {
  assert.equal(sniffTlsSni(Buffer.from('GET / HTTP/1.1\r\n')), { kind: 'none' });
  assert.equal(sniffTlsSni(Buffer.from([0x16, 0x02])), { kind: 'none' }, 'not TLS 3.x');
  assert.equal(sniffTlsSni(Buffer.from([0x17, 0x03, 0x03, 0x00, 0x05, 1, 2, 3, 4, 5])), { kind: 'none' }, 'application data');
  assert.equal(sniffTlsSni(Buffer.from([0x16, 0x03, 0x01, 0x00, 0x00])), { kind: 'none' }, 'an empty record');
});

test('finds no host in a handshake that is not a ClientHello', async () => {
  const hello = Buffer.from(await withSni);
  hello[5] = 0x02;
  assert.equal(sniffTlsSni(hello), { kind: 'none' });
});

test('never throws on corrupted hellos', async () => {
  const hello = await withSni;
  let seed = 7;
  const random = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
  for (let i = 0; i < 2000; i++) {
    const bad = Buffer.from(hello);
    for (let j = 0; j < 3; j++) bad[5 + random(bad.length - 5)] = random(256);
    const outcome = sniffTlsSni(bad);
    assert.ok(['host', 'more', 'none'].includes(outcome.kind));
  }
});

test('finds no host when the name is not a host name', async () => {
  const hello = await withSni;
  const at = hello.indexOf('www.Example.test');
  const withName = (name: string): Buffer => {
    const copy = Buffer.from(hello);
    copy.write(name, at, 'latin1');
    return copy;
  };
  assert.equal(sniffTlsSni(withName('www.Exa mple.tes')), { kind: 'none' });
  assert.equal(sniffTlsSni(withName('www.example.te\u00e9')), { kind: 'none' });
});

test.run();
