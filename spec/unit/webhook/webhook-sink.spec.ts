import { pino } from 'pino';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { WebhookSinkConfig } from '../../../actors/config/schema.js';
import { parseConfig } from '../../../actors/config/load-config.js';
import { StopDeadline } from '../../../actors/base/stop-deadline.js';
import { Subject } from 'rxjs';
import { JournalOutboxStore } from '../../../actors/outbox/journal-outbox-store.js';
import { WebhookSink } from '../../../actors/webhook/webhook-sink.js';
import { EventBus } from '../../../streams/event-bus.js';
import { tempDir } from '../../support/temp-dir.js';
import { designExample, EXAMPLE_ENV } from '../config/fixtures.js';
import { ROOMY } from '../outbox/outbox-contract.js';

test('ranges an earlier run missed are recorded at start, each as its own gap', async () => {
  const result = parseConfig(designExample(), { baseDir: '/tmp', env: EXAMPLE_ENV });
  assert.ok(result.ok);
  const config = result.config.event_sinks.find((s): s is WebhookSinkConfig => s.type === 'webhook')!;
  const stateDir = tempDir('weir-webhook-sink-');
  const store = new JournalOutboxStore({ stateDir, limits: ROOMY });
  const sink = new WebhookSink(config, {
    nodeId: 'n1',
    stateDir,
    bus: new EventBus({ ringCapacity: 16, ringMaxBytes: 1 << 16 }),
    openOutbox: async (tag) => ({ store: 'embedded', outbox: await store.open(tag) }),
    redis: null,
    publish: () => {},
    deadline: new StopDeadline(),
    log: pino({ level: 'silent' }),
    acks: new Subject(),
  });
  // Adjacent ranges of two runs: sequences restart with every run, so they never merge.
  const missed = [
    { from_sequence: 3, to_sequence: 9, at_unix_ms: 1000 },
    { from_sequence: 10, to_sequence: 12, at_unix_ms: 2000 },
  ];
  try {
    await sink.start(undefined, missed);
    const state = sink.state();
    assert.is(state.replay_gaps, 2);
    assert.equal(state.gaps, missed);
  } finally {
    await sink.stop();
    await store.close();
  }
});

test.run();
