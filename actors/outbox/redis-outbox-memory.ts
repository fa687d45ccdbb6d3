import path from 'node:path';
import { z } from 'zod';
import { readStateFile, writeJsonFileSync } from '../files/atomic-json.js';

/** The file name inside `node.state_dir`. */
const MEMORY_FILE = 'redis-outboxes.json';

const remembered = z.object({
  store_id: z.string().min(1),
  /** No event below this sequence was pending in the sink's Redis outbox when it was written. */
  floor: z.number().int(),
  total_delivered: z.number().int(),
  total_failed: z.number().int(),
  replay_gaps: z.number().int(),
});
export type RememberedOutbox = z.infer<typeof remembered>;

const fileSchema = z.record(z.string(), remembered);

/**
 * What a node keeps in its state_dir of each sink's Redis outbox, written when the
 * outbox opens and closes: the id its state hash carries, the lowest sequence that may
 * be pending, and the counters. A Redis that comes back without the hash (restarted
 * without its data, flushed) while the node was stopped is told by it at the next open,
 * and the loss gets a replay gap and the counters back instead of going unnoticed.
 */
export class RedisOutboxMemory {
  private readonly file: string;

  constructor(stateDir: string) {
    this.file = path.join(stateDir, MEMORY_FILE);
  }

  /** `stateKey` is the sink's state hash key: it names the node id and the tag, so a node renamed does not see its old outboxes as lost. */
  get(stateKey: string): RememberedOutbox | undefined {
    return this.read()[stateKey];
  }

  /** Best effort: a state_dir that cannot be written only loses this safeguard. */
  set(stateKey: string, value: RememberedOutbox): void {
    const all = this.read();
    all[stateKey] = value;
    try {
      writeJsonFileSync(this.file, all);
    } catch {
      // The next open finds the previous record, or none: a loss is then seen only while running.
    }
  }

  /** A damaged or missing file counts as empty. */
  private read(): Record<string, RememberedOutbox> {
    const read = readStateFile(this.file, fileSchema);
    return 'value' in read ? read.value : {};
  }
}
