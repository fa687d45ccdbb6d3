import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { webhookIdOf } from '../../../actors/webhook/batch-id.js';

test('one envelope is named by its event_id', () => {
  assert.is(webhookIdOf(['ep-41']), 'ep-41');
});

test('a batch is named by its first event_id, its count and a digest of every event_id', () => {
  assert.match(webhookIdOf(['ep-41', 'ep-42', 'ep-43']), /^ep-41\+2\.[0-9a-f]{16}$/);
  assert.is(webhookIdOf(['ep-41', 'ep-42', 'ep-43']), webhookIdOf(['ep-41', 'ep-42', 'ep-43']), 'a resent batch keeps its id');
});

test('two batches that start with the same event and have as many entries get different ids', () => {
  // A batch that failed after the receiver took it, then its first entry retried beside newer events.
  assert.is.not(webhookIdOf(['ep-1', 'ep-2', 'ep-3']), webhookIdOf(['ep-1', 'ep-9', 'ep-10']));
});

test.run();
