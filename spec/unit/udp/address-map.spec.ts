import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AddressMap, headerMap, udpHeaderLength } from '../../../actors/udp/address-map.js';

test('headerMap encodes RSV RSV FRAG=0 ATYP ADDR PORT for IPv4, IPv6 and a domain', () => {
  const headers = headerMap();
  assert.equal([...headers.get('10.1.2.3', 53)], [0, 0, 0, 1, 10, 1, 2, 3, 0, 53]);
  assert.equal([...headers.get('::1', 0x1234)], [0, 0, 0, 4, ...new Array<number>(15).fill(0), 1, 0x12, 0x34]);
  assert.equal([...headers.get('ab.c', 80)], [0, 0, 0, 3, 4, 97, 98, 46, 99, 0, 80]);
});

test('hands out the same header buffer for an address seen before', () => {
  const headers = headerMap();
  const first = headers.get('127.0.0.1', 9000);
  assert.is(headers.get('127.0.0.1', 9000), first);
  assert.is.not(headers.get('127.0.0.1', 9001), first);
  assert.is(headers.size, 2);
});

test('forgets the oldest address once its limit is reached', () => {
  let made = 0;
  const map = new AddressMap(() => ++made, 2);
  map.get('a', 1);
  map.get('b', 1);
  map.get('c', 1);
  assert.is(map.size, 2);
  assert.not.ok(map.has('a', 1));
  assert.ok(map.has('b', 1) && map.has('c', 1));
  assert.is(map.get('a', 1), 4, 'a forgotten address is made again');
});

test('add says whether an address was new', () => {
  const map = new AddressMap(() => true);
  assert.ok(map.add('h', 1));
  assert.not.ok(map.add('h', 1));
  assert.ok(map.add('h', 2));
  assert.is(map.size, 2);
});

test('tells addresses apart by port as well as host', () => {
  const map = new AddressMap(() => true);
  map.get('h', 1);
  assert.not.ok(map.has('h', 2));
});

test('udpHeaderLength measures IPv4, IPv6 and domain headers', () => {
  assert.is(udpHeaderLength(Buffer.from([0, 0, 0, 1, 1, 2, 3, 4, 0, 80, 0xaa])), 10);
  assert.is(udpHeaderLength(Buffer.concat([Buffer.from([0, 0, 0, 4]), Buffer.alloc(18)])), 22);
  assert.is(udpHeaderLength(Buffer.from([0, 0, 0, 3, 2, 97, 98, 0, 80])), 9);
});

test('udpHeaderLength refuses fragments, truncated headers, empty domains and unknown types', () => {
  assert.is(udpHeaderLength(Buffer.from([0, 0, 1, 1, 1, 2, 3, 4, 0, 80])), -1, 'FRAG 1');
  assert.is(udpHeaderLength(Buffer.from([0, 0, 0, 1, 1, 2, 3, 4, 0])), -1, 'port cut short');
  assert.is(udpHeaderLength(Buffer.from([0, 0, 0, 3, 0, 0, 80])), -1, 'empty domain');
  assert.is(udpHeaderLength(Buffer.from([0, 0, 0, 3])), -1, 'no domain length');
  assert.is(udpHeaderLength(Buffer.from([0, 0, 0, 2, 1, 2, 3, 4, 0, 80])), -1, 'ATYP 2');
});

test.run();
