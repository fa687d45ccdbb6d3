import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRedisServer, type RedisServer } from './redis-server.js';
import { testCa, type CertFiles } from './test-ca.js';

/** docs/redis-acl.conf: weir's least-privilege ACL user, as documented. */
const ACL_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'docs', 'redis-acl.conf');

/**
 * The documented user's line with `password` in place of its CHANGE-ME; throws unless the
 * document is that one line, as an aclfile must be (Redis takes no comments there).
 */
export function aclUserLine(password: string): { user: string; line: string } {
  const lines = fs.readFileSync(ACL_FILE, 'utf8').split('\n').filter((l) => l !== '');
  const [line] = lines;
  if (lines.length !== 1 || !line!.startsWith('user ') || !line!.includes(' >CHANGE-ME ')) throw new Error(`${ACL_FILE} is not one "user <name> … >CHANGE-ME …" line`);
  return { user: line!.split(' ')[1]!, line: line!.replace(' >CHANGE-ME ', ` >${password} `) };
}

export interface TlsAclRedis {
  server: RedisServer;
  /** The documented ACL user and its password. */
  user: string;
  password: string;
  ca: string;
  /** A client certificate of the server's CA, and one of a CA the server does not know. */
  client: CertFiles;
  stranger: CertFiles;
  /** Restarts the server with the user's password changed, as an operator rotating it (its data kept). */
  changePassword(password: string): Promise<void>;
}

/**
 * A redis-server on a TLS port only, asking clients for a certificate of a test CA,
 * whose one user is docs/redis-acl.conf's (the default user disabled), loaded as an
 * `aclfile` as an operator would.
 */
export async function startTlsAclRedis(password: string): Promise<TlsAclRedis> {
  const [ca, otherCa] = await Promise.all([testCa(), testCa()]);
  const [server, client, stranger] = await Promise.all([ca.issue('redis-server'), ca.issue('weir-client', { client: true }), otherCa.issue('stranger', { client: true })]);
  const { user } = aclUserLine(password);
  const aclfile = path.join(ca.dir, 'users.acl');
  const writeAcl = (pw: string): void => fs.writeFileSync(aclfile, `user default off\n${aclUserLine(pw).line}\n`);
  writeAcl(password);
  const redis = await startRedisServer(['--aclfile', aclfile], { tls: { ca: ca.caCert, server, client } });
  const changePassword = async (pw: string): Promise<void> => {
    await redis.stop();
    writeAcl(pw);
    await redis.restart();
  };
  return { server: redis, user, password, ca: ca.caCert, client, stranger, changePassword };
}
