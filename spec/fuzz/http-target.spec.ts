import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { absoluteTarget, authorityTarget } from '../../actors/inbounds/http-target.js';
import { checkProperty } from '../support/fuzz.js';

// The request-target parsers of the HTTP inbound (CONNECT authority, absolute form)
// against any text: null or a dialable target, never a throw; and a target they are
// given in its own form comes back as it was.

const SPEC_RUNS = 5000;
/** Bytes that would be framing to the next hop: a parsed host or path never holds one. */
const FRAMING = /[\s\0]/;
const text = fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 300 }), fc.webUrl(), fc.webAuthority({ withPort: true }));

test('authorityTarget and absoluteTarget give null or a dialable target for any text', async () => {
  await checkProperty(
    fc.property(text, (input) => {
      for (const parsed of [authorityTarget(input), absoluteTarget(input)?.target ?? null]) {
        if (parsed === null) continue;
        assert.ok(parsed.host.length > 0 && !FRAMING.test(parsed.host), JSON.stringify(parsed));
        assert.ok(Number.isInteger(parsed.port) && parsed.port >= 1 && parsed.port <= 65535, JSON.stringify(parsed));
      }
      const absolute = absoluteTarget(input);
      if (absolute) assert.ok(absolute.path.startsWith('/') && !FRAMING.test(absolute.path), JSON.stringify(absolute));
    }),
    SPEC_RUNS,
  );
});

const port = fc.integer({ min: 1, max: 65535 });
const host = fc.oneof(fc.domain(), fc.ipV4(), fc.ipV6().map((ip) => `[${ip}]`));

test('parse ∘ print: a CONNECT authority host:port parses back to its host and port', async () => {
  await checkProperty(
    fc.property(host, port, (h, p) => {
      assert.equal(authorityTarget(`${h}:${p}`), { host: h.replace(/^\[(.*)\]$/, '$1'), port: p });
    }),
    SPEC_RUNS,
  );
});

test.run();
