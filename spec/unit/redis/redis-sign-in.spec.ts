import fs from 'node:fs';
import path from 'node:path';
import type { Cluster, Redis } from 'ioredis';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connectRedis } from '../../../actors/redis/redis-client.js';
import { clusterRefusalReason, refusalReason } from '../../../actors/redis/redis-refusal.js';
import { tempDir } from '../../support/temp-dir.js';

/** PEM stand-ins: the client reads the files, it does not parse them until it connects. */
function tlsFiles(): { ca: string; cert: string; key: string } {
  const dir = tempDir('weir-redis-pem-');
  const files = { ca: path.join(dir, 'ca.pem'), cert: path.join(dir, 'c.pem'), key: path.join(dir, 'c.key') };
  for (const [name, file] of Object.entries(files)) fs.writeFileSync(file, `${name}-pem`);
  return files;
}

test('a standalone client signs in as redis.username with the URL password, over TLS with the configured files', () => {
  const files = tlsFiles();
  const client = connectRedis({ url: 'rediss://:p%40ss@127.0.0.1:6380/2', username: 'weir', tls: { ...files, servername: 'redis.internal' } }, { lazyConnect: true }) as Redis;
  const { host, port, db, username, password, tls } = client.options;
  assert.equal({ host, port, db, username, password }, { host: '127.0.0.1', port: 6380, db: 2, username: 'weir', password: 'p@ss' });
  assert.equal(tls, { ca: Buffer.from('ca-pem'), cert: Buffer.from('cert-pem'), key: Buffer.from('key-pem'), servername: 'redis.internal' });
  client.disconnect();
});

test('a URL user stands when redis.username is not given, and redis:// has no TLS', () => {
  const client = connectRedis('redis://ops:pw@127.0.0.1:6379', { lazyConnect: true }) as Redis;
  assert.equal([client.options.username, client.options.password, client.options.tls], ['ops', 'pw', undefined]);
  client.disconnect();
});

test('every node of a cluster gets the user, password and TLS of the first seed', () => {
  const files = tlsFiles();
  const client = connectRedis({ cluster: ['rediss://:pw@127.0.0.1:7000', 'rediss://127.0.0.1:7001'], username: 'weir', tls: files }, { lazyConnect: true }) as Cluster;
  const { username, password, tls } = client.options.redisOptions ?? {};
  assert.equal({ username, password, ca: (tls as { ca?: Buffer }).ca?.toString() }, { username: 'weir', password: 'pw', ca: 'ca-pem' });
  client.disconnect();
});

test('refusals are told by the reply or the TLS code, with OpenSSL cut to its reason; other errors are not refusals', () => {
  const err = (message: string, code?: string): Error => Object.assign(new Error(message), code === undefined ? {} : { code });
  assert.is(refusalReason(err('WRONGPASS invalid username-password pair or user is disabled.')), 'the sign-in failed: WRONGPASS invalid username-password pair or user is disabled.');
  assert.is(refusalReason(err('NOAUTH Authentication required.')), 'the sign-in failed: NOAUTH Authentication required.');
  const alert = '80AC829A047F0000:error:0A000418:SSL routines:ssl3_read_bytes:tlsv1 alert unknown ca:../deps/openssl/openssl/ssl/record/rec_layer_s3.c:1601:SSL alert number 48\n';
  assert.is(refusalReason(err(alert, 'ERR_SSL_TLSV1_ALERT_UNKNOWN_CA')), 'the TLS handshake failed: tlsv1 alert unknown ca (ERR_SSL_TLSV1_ALERT_UNKNOWN_CA)');
  assert.is(refusalReason(err('self-signed certificate in certificate chain', 'SELF_SIGNED_CERT_IN_CHAIN')), 'the TLS handshake failed: self-signed certificate in certificate chain (SELF_SIGNED_CERT_IN_CHAIN)');
  const cluster = Object.assign(new Error('Failed to refresh slots cache.'), { lastNodeError: err('WRONGPASS invalid username-password pair or user is disabled.') });
  assert.is(refusalReason(cluster), 'the sign-in failed: WRONGPASS invalid username-password pair or user is disabled.');
  assert.is(refusalReason(err('connect ECONNREFUSED 127.0.0.1:6379', 'ECONNREFUSED')), null);
  assert.is(refusalReason(err('NOPERM this user has no permissions to run the \'flushall\' command')), null);
});

test('a cluster seed refuses weir when the ACL user may not ask for its slots or state, or when it is no cluster', () => {
  const noSlots = Object.assign(new Error('Failed to refresh slots cache.'), { lastNodeError: new Error("NOPERM this user has no permissions to run the 'cluster|slots' command") });
  assert.is(refusalReason(noSlots), "the ACL user may not run a command a cluster client needs: NOPERM this user has no permissions to run the 'cluster|slots' command");
  assert.is(clusterRefusalReason(new Error("NOPERM this user has no permissions to run the 'cluster|info' command")), "the ACL user may not run a command a cluster client needs: NOPERM this user has no permissions to run the 'cluster|info' command");
  const standalone = Object.assign(new Error('Failed to refresh slots cache.'), { lastNodeError: new Error('ERR This instance has cluster support disabled') });
  assert.is(refusalReason(standalone), 'the seeds are not a Redis Cluster: ERR This instance has cluster support disabled');
  assert.is(clusterRefusalReason(new Error('WRONGPASS invalid username-password pair or user is disabled.')), 'the sign-in failed: WRONGPASS invalid username-password pair or user is disabled.');
  assert.is(clusterRefusalReason(new Error('Connection is closed.')), null);
});

test.run();
