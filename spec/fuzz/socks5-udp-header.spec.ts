import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeUdpDatagram, encodeAddress, encodeUdpHeader, type SocksTarget } from '../../actors/socks5/socks5-wire.js';
import { ipOfHost } from '../../actors/net/ip-of-host.js';
import { isHostName } from '../../actors/net/host-name.js';
import { checkProperty } from '../support/fuzz.js';

// The SOCKS5 UDP header (RFC 1928 §7) of a client datagram: any bytes decode to null or
// a datagram with a dialable-looking target and the rest as data, never a throw; and a
// header encodeUdpHeader wrote decodes back to its target, fragment and data.

const SPEC_RUNS = 5000;

test('any datagram decodes to null or a target and the bytes after the header', async () => {
  await checkProperty(
    fc.property(fc.uint8Array({ maxLength: 400 }), (bytes) => {
      const buf = Buffer.from(bytes);
      const datagram = decodeUdpDatagram(buf);
      if (datagram === null) return;
      const { target, data } = datagram;
      assert.ok(target.host.length > 0 && !/[\s\0]/.test(target.host), JSON.stringify(target));
      assert.ok(target.port >= 0 && target.port <= 0xffff);
      assert.equal([...data], [...buf.subarray(buf.length - data.length)], 'data is the tail of the datagram');
    }),
    SPEC_RUNS,
  );
});

const domain = fc.domain().filter((name) => Buffer.byteLength(name) <= 255 && isHostName(name) && ipOfHost(name) === null);
const target: fc.Arbitrary<SocksTarget> = fc.record({ host: fc.oneof(fc.ipV4(), fc.ipV6(), domain), port: fc.integer({ min: 0, max: 0xffff }) });

test('decode ∘ encode: a header encodeUdpHeader wrote gives back its target, fragment and data', async () => {
  await checkProperty(
    fc.property(target, fc.integer({ min: 0, max: 255 }), fc.uint8Array({ maxLength: 64 }), (t, frag, data) => {
      const datagram = decodeUdpDatagram(Buffer.concat([encodeUdpHeader(t, frag), data]));
      assert.ok(datagram !== null);
      assert.is(datagram.frag, frag);
      // An IPv6 address comes back in its canonical text, so the address bytes are compared.
      assert.equal([...encodeAddress(datagram.target)], [...encodeAddress(t)]);
      assert.equal([...datagram.data], [...data]);
    }),
    SPEC_RUNS,
  );
});

test.run();
