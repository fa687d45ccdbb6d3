import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sseFrame, sseReplayGapComment, sseSlowConsumerFrame, wsMessage, wsSlowConsumerReason } from '../../../../http/events/encoders.js';
import { replayGapHeaders } from '../../../../http/events/replay-gap.js';
import { published } from '../../../support/published.js';

test('an SSE frame carries id = sequence, event = type and data = the envelope JSON on one line', () => {
  const e = published(7, 'policy.selected', { note: 'two\nlines' });
  assert.is(sseFrame(e), `id: 7\nevent: policy.selected\ndata: ${JSON.stringify(e.envelope())}\n\n`);
  assert.is(sseFrame(e).split('\n').length, 5);
});

test('a WebSocket message is the envelope JSON', () => {
  const e = published(8, 'stats.sampled', { a: 1 });
  assert.equal(JSON.parse(wsMessage(e)), e.envelope());
  assert.equal(e.envelope().payload, { a: 1 });
});

test('a snapshot and the event whose sequence is its watermark each get a frame of their own', () => {
  const event = published(9, 'flow.started', {});
  const snapshot = published(9, 'flow.snapshot', { watermark: 9, records: [] });
  assert.is(sseFrame(snapshot), `id: 9\nevent: flow.snapshot\ndata: ${snapshot.json}\n\n`);
  assert.is(sseFrame(event), `id: 9\nevent: flow.started\ndata: ${event.json}\n\n`);
});

test('the slow-consumer frame and close reason name where to resume', () => {
  assert.is(sseSlowConsumerFrame(42), 'event: error\ndata: {"code":"SLOW_CONSUMER","resume_from":42}\n\n');
  assert.is(wsSlowConsumerReason(42), 'slow consumer; resume with since=42');
});

test('a replay gap is one SSE comment line and one header, both naming the range', () => {
  const gap = { from_sequence: 5, to_sequence: 1234 };
  assert.is(sseReplayGapComment(gap), ': replay_gap from_sequence=5 to_sequence=1234\n\n');
  assert.equal(replayGapHeaders(gap), { 'Weir-Replay-Gap': '5-1234' });
  assert.equal(replayGapHeaders({ from_sequence: 7, to_sequence: 7 }), { 'Weir-Replay-Gap': '7-7' });
  assert.equal(replayGapHeaders(null), {}, 'no header when nothing is lost');
});

test.run();
