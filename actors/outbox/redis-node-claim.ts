import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { RedisClient } from '../redis/redis-client.js';
import { z } from 'zod';
import { readStateFile, writeJsonFileSync } from '../files/atomic-json.js';
import { nodeClaimKey } from './bullmq-keys.js';
import { isOutOfMemory } from './bullmq-jobs.js';
import { WeirError } from '../errors/weir-error.js';

/** The file name inside `node.state_dir`: the run that last held the claim. */
const CLAIM_FILE = 'redis-claim.json';

/** How long a claim lasts without a refresh: a node gone without a word (kill -9) frees its id after this. */
const CLAIM_TTL_MS = 60_000;

const fileSchema = z.object({ run: z.string().min(1) });

/** Who holds a node id on Redis, as its claim says. */
interface ClaimHolder {
  run: string;
  host: string;
  pid: string;
  state_dir: string;
  since_unix_ms: string;
}

export class NodeIdInUseError extends WeirError<'NODE_ID_IN_USE'> {
  constructor(
    readonly nodeId: string,
    readonly holder: ClaimHolder,
    ttlMs: number,
  ) {
    super(
      'NODE_ID_IN_USE',
      `node.id "${nodeId}" is in use on this Redis by another running node (${describe(holder)}): its outbox queues and counters ` +
        `would be shared; give each node a node.id of its own (if that node is gone, its claim lapses within ${Math.ceil(ttlMs / 1000)} s)`,
    );
  }
}

/** host, pid, state_dir and start of a claim's holder, for messages. */
function describe(h: ClaimHolder): string {
  const since = Number(h.since_unix_ms);
  return `host ${h.host}, pid ${h.pid}, state_dir ${h.state_dir}${Number.isFinite(since) && since > 0 ? `, since ${new Date(since).toISOString()}` : ''}`;
}

/*
 * Takes the claim unless a run other than this one or the state dir's previous one holds
 * it; then answers its fields (holderOf's order). ARGV: run, previous run, ttl ms, host, pid, state_dir, since.
 */
const CLAIM_SCRIPT = `
local held = redis.call('HGET', KEYS[1], 'run')
if held and held ~= ARGV[1] and held ~= ARGV[2] then
  return redis.call('HMGET', KEYS[1], 'run', 'host', 'pid', 'state_dir', 'since_unix_ms')
end
if held ~= ARGV[1] then
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], 'run', ARGV[1], 'host', ARGV[4], 'pid', ARGV[5], 'state_dir', ARGV[6], 'since_unix_ms', ARGV[7])
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {}
`;

/** Deletes the claim if this run holds it. */
const RELEASE_SCRIPT = `
if redis.call('HGET', KEYS[1], 'run') == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

export interface NodeClaimOptions {
  nodeId: string;
  /** Where the run that holds the claim is written, so the node's next start (after a kill -9) takes it over. */
  stateDir?: string;
  /** @defaultValue CLAIM_TTL_MS */
  ttlMs?: number;
  /** Told once when another node took the id while this one ran (e.g. after an outage longer than the TTL). */
  onLost?: (message: string) => void;
}

/**
 * One running node per node id on a shared Redis: two nodes of one id (a copied config)
 * would silently settle each other's deliveries and mix the counters the controller
 * reconciles by. The claim lapses after `ttlMs` unless refreshed (every third of it); a
 * start that finds another run holding it is refused (NodeIdInUseError). The run is kept
 * in the state dir, so the same node restarted after a kill -9 takes its claim at once.
 */
export class RedisNodeClaim {
  private timer: NodeJS.Timeout | null = null;
  private lostTold = false;

  private constructor(
    private readonly redis: RedisClient,
    private readonly opts: NodeClaimOptions,
    private readonly run: string,
    private readonly fields: string[],
    private readonly ttlMs: number,
  ) {}

  /** Takes the claim, or rejects with NodeIdInUseError when another running node holds it. */
  static async take(redis: RedisClient, opts: NodeClaimOptions): Promise<RedisNodeClaim> {
    const ttlMs = opts.ttlMs ?? CLAIM_TTL_MS;
    const fields = [os.hostname(), String(process.pid), opts.stateDir ? path.resolve(opts.stateDir) : '', String(Date.now())];
    const claim = new RedisNodeClaim(redis, opts, randomUUID(), fields, ttlMs);
    const previous = claim.previousRun();
    const holder = await claim.claim(previous).catch(async (err: unknown) => {
      // A Redis out of memory refuses the write, not the read: the id is still checked.
      if (!isOutOfMemory(err)) throw err;
      const found = holderOf(await redis.hmget(nodeClaimKey(opts.nodeId), 'run', 'host', 'pid', 'state_dir', 'since_unix_ms'));
      return found && found.run !== previous ? found : null;
    });
    if (holder) throw new NodeIdInUseError(opts.nodeId, holder, ttlMs);
    claim.remember();
    claim.timer = setInterval(() => void claim.refresh(), Math.max(1, Math.floor(ttlMs / 3)));
    claim.timer.unref();
    return claim;
  }

  /** Gives the id up, if this run still holds it. */
  async release(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.redis.eval(RELEASE_SCRIPT, 1, nodeClaimKey(this.opts.nodeId), this.run).catch(() => undefined);
  }

  /** Keeps the claim alive, and takes it again when it lapsed (an outage longer than the TTL, a Redis that lost its data). */
  private async refresh(): Promise<void> {
    // Redis down or full: the next refresh tries again.
    const holder = await this.claim(this.run).catch(() => undefined);
    if (holder === undefined || (holder !== null && this.lostTold)) return;
    this.lostTold = holder !== null;
    if (holder) {
      this.opts.onLost?.(
        `node.id "${this.opts.nodeId}" was taken on Redis by another node (${describe(holder)}) while this one ran: ` +
          `the two share outbox queues and counters; give each node a node.id of its own`,
      );
    }
  }

  /** Runs the claim script; the holder when another run holds the id, else null. */
  private async claim(previous: string): Promise<ClaimHolder | null> {
    return holderOf((await this.redis.eval(CLAIM_SCRIPT, 1, nodeClaimKey(this.opts.nodeId), this.run, previous, String(this.ttlMs), ...this.fields)) as (string | null)[]);
  }

  private previousRun(): string {
    if (!this.opts.stateDir) return '';
    const read = readStateFile(path.join(this.opts.stateDir, CLAIM_FILE), fileSchema);
    return 'value' in read ? read.value.run : '';
  }

  /** Best effort: without it the next start after a kill -9 waits for this claim to lapse. */
  private remember(): void {
    if (!this.opts.stateDir) return;
    try {
      writeJsonFileSync(path.join(this.opts.stateDir, CLAIM_FILE), { run: this.run });
    } catch {
      // A state_dir that cannot be written: see above.
    }
  }
}

/** The holder from its fields run, host, pid, state_dir and since_unix_ms, in that order; null when none holds the id. */
function holderOf([run, host, pid, stateDir, since]: readonly (string | null | undefined)[]): ClaimHolder | null {
  return run ? { run, host: host ?? '?', pid: pid ?? '?', state_dir: stateDir ?? '?', since_unix_ms: since ?? '' } : null;
}
