import { Subject, VirtualTimeScheduler } from 'rxjs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { pumpEvents, type StreamTransport } from '../../../../http/events/event-pump.js';
import type { SubscriberLimits } from '../../../../http/events/stream-limits.js';
import type { PublishedEvent } from '../../../../streams/published-event.js';
import { published } from '../../../support/published.js';

function envelope(sequence: number, pad = 0): PublishedEvent {
  return published(sequence, 'stats.sampled', {}, { pad: 'x'.repeat(pad) });
}

/** Encodes an envelope as its sequence padded to a known length. */
const encode = (e: PublishedEvent): string => `${e.sequence}:${e.envelope().labels['pad'] ?? ''}`;

class FakeTransport implements StreamTransport {
  writes: string[][] = [];
  heartbeats = 0;
  cut: number | null = null;
  ended = false;
  /** While true, every write asks for drain. */
  full = false;
  private drains: (() => void)[] = [];

  write(frames: string[]): boolean {
    this.writes.push(frames);
    return !this.full;
  }
  onDrain(listener: () => void): void {
    this.drains.push(listener);
  }
  heartbeat(): void {
    this.heartbeats++;
  }
  cutOff(resumeFrom: number): void {
    this.cut = resumeFrom;
  }
  end(): void {
    this.ended = true;
  }
  drain(): void {
    this.full = false;
    for (const listener of this.drains.splice(0)) listener();
  }
}

const LIMITS: SubscriberLimits = { bufferBytes: 100, heartbeatMs: 1000, tickMs: 10 };

function setup(limits: SubscriberLimits = LIMITS) {
  const scheduler = new VirtualTimeScheduler();
  const source = new Subject<PublishedEvent>();
  const transport = new FakeTransport();
  const sub = pumpEvents(source, encode, transport, limits, scheduler);
  const advanceTo = (frame: number): void => {
    scheduler.maxFrames = frame;
    scheduler.flush();
  };
  return { source, transport, sub, advanceTo };
}

/** Event 1 written at frame 10; event 2 written at frame 20 and left the socket wanting drain. */
function stalledAfterTwo(): ReturnType<typeof setup> {
  const pump = setup();
  pump.source.next(envelope(1));
  pump.advanceTo(10);
  pump.transport.full = true;
  pump.source.next(envelope(2));
  pump.advanceTo(20);
  return pump;
}

test('writes the events of one tick in one write', () => {
  const { source, transport, advanceTo } = setup();
  source.next(envelope(1));
  source.next(envelope(2));
  source.next(envelope(3));
  assert.equal(transport.writes, []);
  advanceTo(10);
  assert.equal(transport.writes, [['1:', '2:', '3:']]);
  source.next(envelope(4));
  advanceTo(20);
  assert.equal(transport.writes, [['1:', '2:', '3:'], ['4:']]);
});

test('holds events while the socket wants drain and writes them after drain', () => {
  const { source, transport, advanceTo } = stalledAfterTwo();
  source.next(envelope(3));
  source.next(envelope(4));
  advanceTo(30);
  assert.equal(transport.writes, [['1:'], ['2:']]);
  transport.drain();
  assert.equal(transport.writes, [['1:'], ['2:'], ['3:', '4:']]);
  assert.is(transport.cut, null);
});

test('cuts off a subscriber whose queue outgrows the bound, resuming after the last sequence written', () => {
  const { source, transport, advanceTo } = stalledAfterTwo();
  for (let seq = 3; seq <= 6; seq++) source.next(envelope(seq, 20));
  advanceTo(30);
  assert.is(transport.cut, null, '4 frames of 23 chars are within 100');
  source.next(envelope(7, 20));
  advanceTo(40);
  assert.is(transport.cut, 2);
  assert.not.ok(source.observed, 'the subscription ends with the cut');
  assert.equal(transport.writes, [['1:'], ['2:']]);
});

test('does not count the first batch (replay and snapshot) against the bound', () => {
  const { source, transport, advanceTo } = setup();
  transport.full = true;
  for (let seq = 1; seq <= 20; seq++) source.next(envelope(seq, 20));
  advanceTo(10);
  assert.is(transport.cut, null);
  assert.is(transport.writes.length, 1);
  source.next(envelope(21, 20));
  advanceTo(20);
  assert.is(transport.cut, null, 'only 1 live frame waits');
  transport.drain();
  assert.is(transport.writes.length, 2);
  assert.is(transport.writes[1]!.at(-1), `21:${'x'.repeat(20)}`);
});

test('sends a heartbeat every heartbeatMs, but not while waiting for drain', () => {
  const { source, transport, advanceTo } = setup();
  advanceTo(2000);
  assert.is(transport.heartbeats, 2);
  transport.full = true;
  source.next(envelope(1));
  advanceTo(3000);
  assert.is(transport.heartbeats, 2);
  transport.drain();
  advanceTo(4000);
  assert.is(transport.heartbeats, 3);
});

test('writes what is queued and ends when the node stream completes', () => {
  const { source, transport } = stalledAfterTwo();
  source.next(envelope(3));
  source.complete();
  assert.equal(transport.writes, [['1:'], ['2:'], ['3:']]);
  assert.ok(transport.ended);
});

test('no heartbeat follows the end of the stream, whether it completed or failed', () => {
  for (const finish of ['complete', 'error'] as const) {
    const { source, transport, advanceTo } = setup();
    advanceTo(1000);
    assert.is(transport.heartbeats, 1);
    if (finish === 'complete') source.complete();
    else source.error(new Error('bus failed'));
    assert.ok(transport.ended, finish);
    advanceTo(5000);
    assert.is(transport.heartbeats, 1, finish);
  }
});

test('unsubscribing stops writes and heartbeats', () => {
  const { source, transport, sub, advanceTo } = setup();
  sub.unsubscribe();
  source.next(envelope(1));
  advanceTo(5000);
  assert.equal(transport.writes, []);
  assert.is(transport.heartbeats, 0);
  assert.not.ok(source.observed);
});

test.run();
