import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hostOutcome } from '../../../actors/sniff/sniff-outcome.js';
import { MAX_SNIFF_BYTES, sniffHost } from '../../../actors/sniff/sniff-host.js';
import { captureClientHello } from './client-hello.js';

test('tells TLS from HTTP by the first byte', async () => {
  assert.equal(sniffHost(await captureClientHello('tls.example.test')), { kind: 'host', host: 'tls.example.test' });
  assert.equal(sniffHost(Buffer.from('GET / HTTP/1.1\r\nHost: http.example.test\r\n\r\n')), { kind: 'host', host: 'http.example.test' });
});

test('waits for the first byte', () => {
  assert.equal(sniffHost(Buffer.alloc(0)), { kind: 'more' });
});

test('gives up on a hello that is still incomplete at the sniffing limit', () => {
  // A record header announcing more than the limit, then filler.
  const big = Buffer.alloc(MAX_SNIFF_BYTES);
  big.set([0x16, 0x03, 0x01, 0x47, 0xff, 0x01, 0x00, 0x47, 0xfb]);
  assert.equal(sniffHost(big.subarray(0, MAX_SNIFF_BYTES - 1)), { kind: 'more' });
  assert.equal(sniffHost(big), { kind: 'none' });
});

test('finds no host in binary protocols', () => {
  assert.equal(sniffHost(Buffer.from([0x05, 0x01, 0x00])), { kind: 'none' });
  assert.equal(sniffHost(Buffer.from('SSH-2.0-OpenSSH_9.6\r\n')), { kind: 'none' });
});

test('normalizes host names and refuses IP literals', () => {
  assert.equal(hostOutcome('WWW.Example.TEST.'), { kind: 'host', host: 'www.example.test' });
  assert.equal(hostOutcome('_dmarc.example.test'), { kind: 'host', host: '_dmarc.example.test' });
  assert.equal(hostOutcome('192.0.2.1'), { kind: 'none' });
  assert.equal(hostOutcome('::1'), { kind: 'none' });
  assert.equal(hostOutcome(''), { kind: 'none' });
  assert.equal(hostOutcome('-bad.example'), { kind: 'none' });
  assert.equal(hostOutcome(`${'a'.repeat(64)}.example`), { kind: 'none' }, 'a label longer than 63');
});

test.run();
