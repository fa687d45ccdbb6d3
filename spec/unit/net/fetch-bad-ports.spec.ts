import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FETCH_BAD_PORTS, fetchRefusesPort } from '../../../actors/net/fetch-bad-ports.js';

/** How fetch() ends on `port` of loopback: 'bad port' when it refuses without connecting. */
async function fetchEnd(port: number): Promise<string> {
  try {
    await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(1000) });
    return 'answered';
  } catch (err) {
    return String((err as { cause?: { message?: string } }).cause?.message ?? err);
  }
}

test('the list is the ports this Node’s fetch() refuses, and a port next to one is not', async () => {
  const refused = await Promise.all(FETCH_BAD_PORTS.map(async (port) => [port, await fetchEnd(port)] as const));
  assert.equal(refused.filter(([, end]) => end !== 'bad port'), [], 'every listed port is refused');
  assert.is.not(await fetchEnd(10081), 'bad port');
});

test('a scheme’s default port is never one', () => {
  assert.is(fetchRefusesPort(new URL('http://controller.example/ingest')), false);
  assert.is(fetchRefusesPort(new URL('http://controller.example:6667/ingest')), true);
});

test.run();
