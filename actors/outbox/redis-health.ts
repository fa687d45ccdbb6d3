/**
 * Whether the node's sinks reach Redis, told once per change for the whole node: each
 * sink's JournaledOutbox says when Redis failed it and when its journal's move found it
 * answering again, and an outage that several sinks notice is one `lost`, its end one `back`.
 */
export class RedisHealth {
  private readonly down = new Set<string>();
  private told = false;

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
  markLost(): void {
    this.told = true;
  }

  failed(sink: string, reason: string): void {
    this.down.add(sink);
    if (this.told) return;
    this.told = true;
    this.tell.lost(`Redis failed sink "${sink}" (${reason}); sinks keep events in their outage journals until it answers`);
  }

  answered(sink: string): void {
    this.down.delete(sink);
    if (!this.told || this.down.size > 0) return;
    this.told = false;
    this.tell.back('Redis answers again; sinks move their outage journals into their queues');
  }
}
