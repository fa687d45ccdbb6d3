import { RedisRefusedError } from '../redis/redis-refusal.js';

const isRefusal = (why: unknown): boolean => why instanceof RedisRefusedError || (why instanceof Error && why.cause instanceof RedisRefusedError);

/**
 * Whether the node's sinks reach Redis, told once per change for the whole node: an
 * outage several sinks notice is one `lost`, its end one `back`. A refusal (a password
 * or certificate Redis does not take) found after the outage was told for another
 * reason is told once more: it is what the operator must fix.
 */
export class RedisHealth {
  private readonly down = new Set<string>();
  private told = false;
  private toldRefusal = false;

  constructor(
    private readonly tell: {
      lost: (message: string) => void;
      back: (message: string) => void;
    },
  ) {}

  /** False from an outage's start to its end, as told. */
  get up(): boolean {
    return !this.told;
  }

  /** An outage already told (Redis unreachable at start): its end is told, its start is not again. */
  markLost(why: unknown): void {
    this.told = true;
    this.toldRefusal = isRefusal(why);
  }

  failed(sink: string, why: Error | string): void {
    this.down.add(sink);
    const refusal = isRefusal(why);
    if (this.told && (this.toldRefusal || !refusal)) return;
    this.told = true;
    this.toldRefusal = refusal;
    this.tell.lost(`Redis failed sink "${sink}" (${typeof why === 'string' ? why : why.message}); sinks keep events in their outage journals until it answers`);
  }

  answered(sink: string): void {
    this.down.delete(sink);
    if (!this.told || this.down.size > 0) return;
    this.told = false;
    this.toldRefusal = false;
    this.tell.back('Redis answers again; sinks move their outage journals into their queues');
  }
}
