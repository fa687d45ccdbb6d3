import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { within } from '../../../actors/base/within.js';
import { RedisRefusedError } from '../../../actors/redis/redis-refusal.js';
import { withRedis } from '../../../actors/redis/with-redis.js';
import { startRedisCluster } from '../../support/redis-cluster.js';
import { startRedisServer } from '../../support/redis-server.js';

const PASSWORD = 'refusals-pass-61c0e7a2';
const USER = 'weir';

/** What a PING through the cluster client ends with, within 20 s (a wait for ever is the bug). */
async function pingEnd(seeds: readonly string[], username?: string): Promise<unknown> {
  const ping = withRedis({ cluster: seeds, username }, (redis) => redis.ping()).then(
    (reply) => reply,
    (err: unknown) => err,
  );
  return (await within(ping, 20_000)) ?? 'no end within 20 s';
}

function assertRefused(end: unknown, message: string): void {
  assert.instance(end, RedisRefusedError, String(end));
  assert.is((end as RedisRefusedError).code, 'REDIS_UNAVAILABLE');
  assert.is((end as RedisRefusedError).message, message);
}

test('seeds that answer but are no cluster refuse weir', async () => {
  const server = await startRedisServer();
  try {
    assertRefused(await pingEnd([server.url]), `Redis at ${server.url} refused weir: the seeds are not a Redis Cluster: ERR This instance has cluster support disabled`);
  } finally {
    await server.close();
  }
});

test('an ACL user without +cluster|slots or +cluster|info is refused with the NOPERM, naming every seed; with both it answers', async () => {
  const cluster = await startRedisCluster();
  try {
    const seeds = cluster.seeds.map((s) => s.replace('redis://', `redis://:${PASSWORD}@`));
    const allow = (...rules: string[]): Promise<void> => cluster.setUser(USER, ['on', `>${PASSWORD}`, '~*', '+@all', ...rules]);
    for (const command of ['cluster|slots', 'cluster|info']) {
      await allow(`-${command}`);
      assertRefused(await pingEnd(seeds, USER), `Redis at ${cluster.seeds.join(', ')} refused weir: the ACL user may not run a command a cluster client needs: NOPERM this user has no permissions to run the '${command}' command`);
    }
    await allow();
    assert.is(await pingEnd(seeds, USER), 'PONG');
  } finally {
    await cluster.close();
  }
});

test.run();
