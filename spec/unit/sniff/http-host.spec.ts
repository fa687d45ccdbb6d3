import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_HTTP_HEAD, sniffHttpHost } from '../../../actors/sniff/http-host.js';

const sniff = (text: string): ReturnType<typeof sniffHttpHost> => sniffHttpHost(Buffer.from(text, 'latin1'));
const HOST = (host: string): ReturnType<typeof sniffHttpHost> => ({ kind: 'host', host });
const MORE = { kind: 'more' };
const NONE = { kind: 'none' };

test('reads the Host header without its port, in lower case', () => {
  assert.equal(sniff('GET / HTTP/1.1\r\nHost: Www.Example.TEST:8080\r\nAccept: */*\r\n\r\n'), HOST('www.example.test'));
  assert.equal(sniff('POST /x HTTP/1.0\r\nUser-Agent: curl\r\nhost:example.test\r\n\r\nbody'), HOST('example.test'));
  assert.equal(sniff('GET http://a.test/ HTTP/1.1\nHOST:  a.test \n\n'), HOST('a.test'), 'bare LF and spaces');
});

test('answers as soon as the Host line is complete', () => {
  assert.equal(sniff('GET / HTTP/1.1\r\nHost: early.test\r\n'), HOST('early.test'));
});

test('asks for more while the head is still coming', () => {
  for (const part of ['', 'G', 'GET', 'GET ', 'GET /index.html HTT', 'GET / HTTP/1.1\r\n', 'GET / HTTP/1.1\r\nAccept: */*\r\n', 'GET / HTTP/1.1\r\nHost: par']) {
    assert.equal(sniff(part), MORE, JSON.stringify(part));
  }
});

test('finds no host in a head without Host or with an IP literal', () => {
  assert.equal(sniff('GET / HTTP/1.0\r\nAccept: */*\r\n\r\n'), NONE);
  assert.equal(sniff('GET / HTTP/1.1\r\nHost: 192.0.2.7:80\r\n\r\n'), NONE);
  assert.equal(sniff('GET / HTTP/1.1\r\nHost: [2001:db8::1]:443\r\n\r\n'), NONE);
  assert.equal(sniff('GET / HTTP/1.1\r\nHost: bad host\r\n\r\n'), NONE);
});

test('finds no host in what is not an HTTP/1 request', () => {
  assert.equal(sniff('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), NONE, "HTTP/2's preface");
  assert.equal(sniff('get / HTTP/1.1\r\nHost: a.test\r\n\r\n'), NONE, 'a lower-case method');
  assert.equal(sniff(' GET / HTTP/1.1\r\n'), NONE);
  assert.equal(sniff('EHLO mail.example.test\r\n'), NONE);
  assert.equal(sniff('\u0000\u0001binary'), NONE);
});

test('gives up on a head longer than the limit', () => {
  const filler = `GET / HTTP/1.1\r\nX-Pad: ${'a'.repeat(MAX_HTTP_HEAD)}`;
  assert.equal(sniff(filler), NONE);
  assert.equal(sniff(`${filler}\r\nHost: late.test\r\n\r\n`), NONE);
});

test.run();
