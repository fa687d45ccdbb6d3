import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeUdpDatagram, encodeAddress, encodeUdpHeader, hostFromBytes } from '../../../actors/socks5/socks5-wire.js';

test('encodes IPv4, IPv6 and domain addresses with their port', () => {
  assert.equal([...encodeAddress({ host: '192.168.0.1', port: 53 })], [1, 192, 168, 0, 1, 0, 53]);
  assert.equal(
    [...encodeAddress({ host: '2001:db8::ff00:42:8329', port: 8080 })],
    [4, 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0xff, 0, 0, 0x42, 0x83, 0x29, 0x1f, 0x90],
  );
  assert.equal([...encodeAddress({ host: 'a.io', port: 443 })], [3, 4, 97, 46, 105, 111, 0x01, 0xbb]);
});

test('encodes an IPv6 address with an embedded IPv4 tail or a zone id', () => {
  assert.equal(
    [...encodeAddress({ host: '::ffff:127.0.0.1', port: 1 })],
    [4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1, 0, 1],
  );
  assert.equal(
    [...encodeAddress({ host: 'fe80::1%eth0', port: 1 })],
    [4, 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1],
  );
});

test('refuses a domain the length byte cannot describe', () => {
  assert.throws(() => encodeAddress({ host: 'x'.repeat(256), port: 1 }), RangeError);
  assert.is(encodeAddress({ host: 'x'.repeat(255), port: 1 }).length, 1 + 1 + 255 + 2);
});

test('formats IPv6 bytes in RFC 5952 form', () => {
  const v6 = (...groups: number[]): Buffer => {
    const out = Buffer.alloc(16);
    groups.forEach((g, i) => out.writeUInt16BE(g, i * 2));
    return out;
  };
  assert.is(hostFromBytes(4, v6(0, 0, 0, 0, 0, 0, 0, 0)), '::');
  assert.is(hostFromBytes(4, v6(0x2001, 0xdb8, 0, 0, 1, 0, 0, 1)), '2001:db8::1:0:0:1');
  assert.is(hostFromBytes(4, v6(0x2001, 0xdb8, 0, 1, 1, 1, 1, 1)), '2001:db8:0:1:1:1:1:1');
  assert.is(hostFromBytes(4, v6(0xFE80, 0, 0, 0, 0xABCD, 0, 0, 0)), 'fe80::abcd:0:0:0');
  assert.is(hostFromBytes(4, v6(0, 0, 0, 0, 0, 0xffff, 0x7f00, 1)), '::ffff:127.0.0.1');
  assert.is(hostFromBytes(1, Buffer.from([10, 0, 0, 254])), '10.0.0.254');
});

test('encodes a UDP header with RSV, FRAG and the target', () => {
  assert.equal([...encodeUdpHeader({ host: '8.8.8.8', port: 53 })], [0, 0, 0, 1, 8, 8, 8, 8, 0, 53]);
  assert.equal([...encodeUdpHeader({ host: 'a.io', port: 53 }, 2)], [0, 0, 2, 3, 4, 97, 46, 105, 111, 0, 53]);
});

test('decodes what encodeUdpHeader wrote, with the data after it', () => {
  for (const target of [{ host: '8.8.8.8', port: 53 }, { host: '2001:db8::1', port: 5353 }, { host: 'dns.example', port: 853 }]) {
    const datagram = Buffer.concat([encodeUdpHeader(target, 1), Buffer.from('query')]);
    const decoded = decodeUdpDatagram(datagram);
    assert.ok(decoded !== null);
    assert.equal({ ...decoded, data: decoded.data.toString() }, { frag: 1, target, data: 'query' });
  }
});

test('decodes a datagram with empty data', () => {
  assert.equal(decodeUdpDatagram(Buffer.from([0, 0, 0, 1, 1, 2, 3, 4, 0, 9])), {
    frag: 0,
    target: { host: '1.2.3.4', port: 9 },
    data: Buffer.alloc(0),
  });
});

test('returns null for a short, unknown-type or empty-domain datagram', () => {
  assert.is(decodeUdpDatagram(Buffer.from([0, 0, 0, 1])), null);
  assert.is(decodeUdpDatagram(Buffer.from([0, 0, 0, 1, 1, 2, 3, 4, 0])), null);
  assert.is(decodeUdpDatagram(Buffer.from([0, 0, 0, 4, ...new Array(16).fill(0), 0])), null);
  assert.is(decodeUdpDatagram(Buffer.from([0, 0, 0, 3, 5, 97, 98, 0, 53])), null);
  assert.is(decodeUdpDatagram(Buffer.from([0, 0, 0, 3, 0, 0, 53])), null);
  assert.is(decodeUdpDatagram(Buffer.from([0, 0, 0, 2, 1, 2, 3, 4, 0, 53])), null);
});

/** A client datagram to the domain `name` (latin1: one byte per character), port 53, data `q`. */
function toDomain(name: string): Buffer {
  const bytes = Buffer.from(name, 'latin1');
  return Buffer.from([0, 0, 0, 3, bytes.length, ...bytes, 0, 53, 113]);
}

test('returns null for a datagram to a domain that is not a plausible host name', () => {
  for (const name of ['a\r\nb', 'a b', 'a:53', 'b\u00fccher.example', 'a..b']) {
    assert.is(decodeUdpDatagram(toDomain(name)), null, JSON.stringify(name));
  }
  assert.equal(decodeUdpDatagram(toDomain('dns_1.example.'))?.target, { host: 'dns_1.example.', port: 53 });
});

test('decodes a datagram to a numeric IPv4 domain as the dotted quad it names', () => {
  for (const name of ['127.1', '0x7f000001', '0177.0.0.1']) {
    assert.equal(decodeUdpDatagram(toDomain(name))?.target, { host: '127.0.0.1', port: 53 }, name);
  }
});

test.run();
