import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readyLine } from '../../../cli/ready-line.js';
import { readyPorts } from '../../support/ready-facts.js';

const LINE = readyLine({
  inbounds: [
    { tag: 'socks in, 2', protocol: 'socks', listen: { host: '127.0.0.1', port: 41001 } },
    { tag: 'v6', protocol: 'mixed', listen: { host: '::1', port: 41002 } },
  ],
  control: { host: '127.0.0.1', port: 41003 },
  apiKey: 'in /tmp/key',
  dashboard: true,
});

test('reads each inbound port by its tag, and the control URL, off the line weir run prints', () => {
  const output = `some warning\n${LINE}`;
  assert.equal(readyPorts(output, ['v6', 'socks in, 2']), {
    inbounds: { v6: 41002, 'socks in, 2': 41001 },
    controlUrl: 'http://127.0.0.1:41003',
  });
});

test('is undefined before the ready line, and throws for a tag the line does not name', () => {
  assert.is(readyPorts('weir: generated an API key\n', ['v6']), undefined);
  assert.throws(() => readyPorts(LINE, ['other']), /the ready line names no port for inbound "other"/);
});

test.run();
