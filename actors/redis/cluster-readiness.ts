import { Cluster, type Redis } from 'ioredis';
import { RedisUnreachableError } from '../errors/redis-unreachable.js';
import { clusterRefusalReason, noteRefusal, RedisRefusedError } from './redis-refusal.js';

type RedisClient = Redis | Cluster;

/** weir's event on a cluster client whose ready check failed, with the error that says why. */
const NOT_READY = 'weir:notReady';

/**
 * ioredis's cluster client, once it has the slots, asks CLUSTER INFO before it is ready;
 * when that fails (an ACL user without `+cluster|info`, a cluster in `cluster_state:fail`)
 * it drops the connections and starts over, for ever, with no error event, and its
 * connect() never settles. The status events show it: `connect` (the check under way)
 * then `close` without `ready`. weir then asks the seeds itself why (`probes`, plain
 * connections signed in as the cluster's), keeps the answer as the client's refusal
 * (refusalOf), and tells it as an `error` and to readyRedis. Once per client until it is
 * ready: a caller that wants to ask again makes a new client.
 */
export function watchClusterReadiness(cluster: Cluster, place: string, probes: () => Redis[]): void {
  let checking = false;
  let told = false;
  cluster.on('connect', () => (checking = true));
  cluster.on('ready', () => {
    checking = false;
    told = false;
  });
  cluster.on('close', () => {
    if (!checking || told) return;
    checking = false;
    told = true;
    void whyNotReady(place, probes()).then((err) => {
      noteRefusal(cluster, err);
      if (cluster.listenerCount('error') > 0) cluster.emit('error', err);
      cluster.emit(NOT_READY, err);
    });
  });
}

/**
 * Connects a client made with `lazyConnect` and resolves once it is ready; rejects when
 * it cannot connect, and for a cluster also when its ready check failed (with why).
 */
export function readyRedis(client: RedisClient): Promise<void> {
  if (!(client instanceof Cluster)) return client.connect();
  return new Promise<void>((resolve, reject) => {
    client.once(NOT_READY, reject);
    client
      .connect()
      .then(resolve, reject)
      .finally(() => client.off(NOT_READY, reject));
  });
}

/** The first seed's answer to CLUSTER INFO that explains a cluster client not ready, as an error naming the seeds. */
async function whyNotReady(place: string, probes: readonly Redis[]): Promise<RedisUnreachableError> {
  const answers = await Promise.all(probes.map((probe) => clusterInfo(probe)));
  const said = answers.find((a) => a.refusal !== undefined) ?? answers.find((a) => a.trouble !== undefined) ?? answers[0];
  if (said?.refusal !== undefined) return new RedisRefusedError(place, said.refusal);
  return new RedisUnreachableError(place, said?.trouble ?? 'the cluster client did not become ready');
}

interface ClusterInfoAnswer {
  /** Why the seed refused weir (clusterRefusalReason). */
  refusal?: string;
  /** Why the seed cannot serve: its connection failed or the cluster is down. */
  trouble?: string;
}

async function clusterInfo(probe: Redis): Promise<ClusterInfoAnswer> {
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    const info = String(await probe.cluster('INFO'));
    return /^cluster_state:fail\b/m.test(info) ? { trouble: 'the cluster is down (CLUSTER INFO says cluster_state:fail)' } : {};
  } catch (err) {
    const refusal = clusterRefusalReason(err);
    return refusal !== null ? { refusal } : { trouble: err instanceof Error ? err.message : String(err) };
  } finally {
    probe.disconnect();
  }
}
