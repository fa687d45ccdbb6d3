import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadRound, saturation } from './load-share.js';

test('a run costs the client and origin CPU per unit and per second of wall time', () => {
  // 2 GiB in 4 s: the client spent 0.4 s, the origin 0.2 s.
  assert.equal(loadRound({ clientCpuS: 0.4, originCpuS: 0.2, seconds: 4, units: 2 }, 1), { client: 0.2, origin: 0.1, clientCores: 0.1, originCores: 0.05 });
  // 10,000 connections in 2 s, in µs per connection.
  const rate = loadRound({ clientCpuS: 0.5, originCpuS: 0.25, seconds: 2, units: 10_000 }, 1e6);
  assert.equal([rate.client, rate.origin, rate.clientCores, rate.originCores], [50, 25, 0.25, 0.125]);
});

test('a run without units or time counts as infinitely costly, never as free', () => {
  const r = loadRound({ clientCpuS: 0.1, originCpuS: 0, seconds: 0, units: 0 }, 1e6);
  assert.equal([r.client, r.clientCores], [Infinity, Infinity]);
  assert.match(saturation(r) ?? '', /client used Infinity% of a core/);
});

test('saturation names each side over 90% of a core, and nothing at or under it', () => {
  assert.is(saturation({ client: 1, origin: 1, clientCores: 0.9, originCores: 0.5 }), null);
  assert.is(saturation({ client: 1, origin: 1, clientCores: 0.91, originCores: 0.2 }), 'the load client used 91% of a core');
  assert.is(saturation({ client: 1, origin: 1, clientCores: 1.2, originCores: 0.96 }), 'the load client used 120% of a core and the load origin used 96% of a core');
});

test.run();
