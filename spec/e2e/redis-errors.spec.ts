import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort } from '../support/free-port.js';
import { startOrigin } from '../support/origin.js';
import { startRedisServer } from '../support/redis-server.js';
import { tempDir } from '../support/temp-dir.js';
import { startHookNode, stopAll } from '../support/webhook-node.js';
import { runWeir } from '../support/weir-bin.js';

/** The Redis password of these specs: it must never be shown. */
const PASSWORD = 'redis-pw-7c1e9b04d2';

function unreachable(port: number): string {
  return `Redis at redis://127.0.0.1:${port} is not reachable: ECONNREFUSED 127.0.0.1:${port}`;
}

test('weir deliver with Redis unreachable exits 3 naming the URL (no password) and the OS error', async () => {
  const port = await freePort();
  const dir = tempDir('weir-redis-errors-');
  const config = path.join(dir, 'weir.json');
  fs.writeFileSync(
    config,
    JSON.stringify({
      node: { id: 'deliver-node' },
      control: { api_key: 'redis-errors-api-key-0123' },
      redis: { url: `redis://:${PASSWORD}@127.0.0.1:${port}` },
      outbounds: [{ type: 'direct', tag: 'direct' }],
      event_sinks: [{ type: 'webhook', tag: 'hook', url: 'http://127.0.0.1:8089/ingest', token: 'hook-token-0123456789' }],
    }),
  );
  for (const extra of [[], ['--node', 'deliver-node']]) {
    const result = await runWeir(['deliver', '-c', config, '--log-format', 'json', ...extra]);
    assert.is(result.code, 3, `${extra.join(' ')}: ${result.stderr}`);
    assert.is(result.stderr.split('\n').filter((l) => l.startsWith('weir: ')).join('\n'), `weir: ${unreachable(port)}`);
    assert.not.ok((result.stdout + result.stderr).includes(PASSWORD), 'the password is shown');
  }
});

test('weir dead-letters and GET /sinks/:tag/dead-letters with Redis down: REDIS_UNAVAILABLE, 503, exit 3', async () => {
  const redis = await startRedisServer();
  const admin = new Redis(redis.url);
  await admin.config('SET', 'requirepass', PASSWORD);
  admin.disconnect();
  const origin = await startOrigin();
  const hn = await startHookNode({ origin, redisUrl: `redis://:${PASSWORD}@127.0.0.1:${redis.port}`, hook: { url: 'http://127.0.0.1:8089/ingest' } }).catch(async (err: unknown) => {
    await origin.close();
    await redis.close();
    throw err;
  });
  try {
    assert.is((await hn.api('/sinks/hook/dead-letters')).status, 200);
    await redis.stop();
    const api = await hn.api('/sinks/hook/dead-letters');
    assert.equal([api.status, api.json?.code, api.json?.detail], [503, 'REDIS_UNAVAILABLE', unreachable(redis.port)]);
    const cli = await runWeir(['dead-letters', 'hook', '-c', hn.configPath]);
    assert.equal([cli.code, cli.stdout, cli.stderr], [3, '', `weir: ${unreachable(redis.port)}\n`]);
    assert.not.ok(hn.bodies.some((b) => b.includes(PASSWORD)), 'the password is in an answer');
  } finally {
    await stopAll(hn, origin, redis);
  }
});

test.run();
