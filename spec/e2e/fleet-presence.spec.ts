import { Redis } from 'ioredis';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FleetPresence } from '../../actors/fleet/fleet-presence.js';
import { FLEET_INDEX, presenceKey, type PresenceRecord } from '../../actors/fleet/presence-record.js';
import { FAR_MS, WAIT_MS } from '../support/far-bound.js';
import { startRedisServer } from '../support/redis-server.js';
import { waitFor } from '../support/wait-for.js';

const record: PresenceRecord = {
  node_id: 'edge-p',
  version: '0.1.0',
  build: 'abcdef012345',
  host: 'host-p',
  pid: 4242,
  started_at_unix_ms: 1_700_000_000_000,
  updated_at_unix_ms: 1_700_000_005_000,
  control: '127.0.0.1:9090',
  mode: 'rule',
  active_flows: 3,
  flows_opened: 7,
  interval_ms: 5000,
  bytes_up: 100,
  bytes_down: 200,
  sinks: [],
};

// The refresh interval is FAR_MS, so only the writes at the connection's readiness can
// end these waits.
test('the presence is written once the connection is ready, and again as soon as a dropped connection is back', async () => {
  const redis = await startRedisServer();
  const probe = new Redis(redis.url);
  const presence = new FleetPresence(redis.url, record.node_id, () => Promise.resolve(record), FAR_MS);
  try {
    presence.start();
    const written = await waitFor(() => probe.get(presenceKey(record.node_id)), WAIT_MS, 'the first presence');
    assert.equal(JSON.parse(written), record);
    assert.equal(await probe.zrange(FLEET_INDEX, 0, -1), [record.node_id]);

    await probe.del(presenceKey(record.node_id));
    // Drops every connection but the probe's: the presence's reconnects.
    await probe.client('KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
    await waitFor(() => probe.get(presenceKey(record.node_id)), WAIT_MS, 'the presence after the reconnection');

    await presence.stop();
    assert.is(await probe.get(presenceKey(record.node_id)), null, 'a stop removes it');
    assert.equal(await probe.zrange(FLEET_INDEX, 0, -1), []);
  } finally {
    await presence.stop();
    probe.disconnect();
    await redis.close();
  }
});

test.run();
