import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SinkConfig } from '../../../actors/config/schema.js';
import type { ConnectorState, Sink } from '../../../actors/contracts/sink.js';
import { swapSinks } from '../../../actors/engine/swap-sinks.js';
import { MissedRanges } from '../../../actors/sinks/missed-ranges.js';
import { tempDir } from '../../support/temp-dir.js';

/** A sink whose stop resolves only when the spec releases it, and that logs what happens to it. */
class HeldSink implements Sink {
  readonly type = 'jsonl';
  private release!: (through: number) => void;
  private readonly done = new Promise<number>((resolve) => (this.release = resolve));

  constructor(
    readonly tag: string,
    private readonly log: string[],
    private readonly delivered = 0,
  ) {}

  start(since?: number): Promise<void> {
    this.log.push(`${this.tag} started after ${since}`);
    return Promise.resolve();
  }

  stop(): Promise<number> {
    this.log.push(`${this.tag} stopping`);
    return this.done;
  }

  stopped(through: number): void {
    this.log.push(`${this.tag} stopped`);
    this.release(through);
  }

  keptThrough(lastSequence: number): number {
    return lastSequence;
  }

  state(): ConnectorState {
    return { tag: this.tag, type: this.type, pending: 0, total_delivered: this.delivered, total_failed: 0, replay_gaps: 0, last_error: null, outbox_storage: { write_blocked: false } };
  }
}

const config = (tag: string): SinkConfig => ({ type: 'jsonl', tag, path: `/tmp/${tag}.jsonl` }) as SinkConfig;

test('each replaced tag starts its new sink once its own old one stopped, not after every tag’s stop', async () => {
  const log: string[] = [];
  const [slow, quick] = [new HeldSink('slow', log, 40), new HeldSink('quick', log, 30)];
  const previous: Record<string, number | undefined> = {};
  const swapped = swapSinks([slow, quick], { added: [], replaced: [config('slow'), config('quick')], removed: [] }, {
    build: (c, state) => {
      previous[c.tag] = state?.total_delivered;
      return new HeldSink(c.tag, log);
    },
    lastSequence: () => 0,
    startFailed: () => assert.unreachable('every start succeeds'),
    missed: new MissedRanges(tempDir('weir-swap-'), async () => true),
  });
  quick.stopped(7);
  await new Promise((resolve) => setImmediate(resolve));
  slow.stopped(9);
  const { sinks } = await swapped;
  assert.equal(log, ['slow stopping', 'quick stopping', 'quick stopped', 'quick started after 7', 'slow stopped', 'slow started after 9']);
  assert.equal(sinks.map((s) => s.tag), ['slow', 'quick']);
  assert.equal(previous, { slow: 40, quick: 30 }, 'each new sink goes on from its stopped predecessor’s state');
  assert.not.ok(sinks.includes(slow) || sinks.includes(quick), 'the new sinks replace the old');
});

test.run();
