import { setTimeout as sleep } from 'node:timers/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { EntrySettlement, Outbox, OutboxAppend, OutboxEntry, OutboxLimits, OutboxState, OutboxStore } from '../../../actors/contracts/outbox.js';
import { OutboxClosed, OutboxWriteBlocked } from '../../../actors/outbox/outbox-errors.js';

/** Where one test's outbox data lives; every `open` sees what earlier stores left. */
export interface OutboxBacking<O extends Outbox = Outbox> {
  open(limits?: OutboxLimits): Promise<OutboxStore<O>>;
  dispose(): Promise<void>;
  /**
   * Delivers every entry of `outbox` that is due, oldest first, as the store's consumer
   * does (a lease loop, BullMQ workers), settling each by `settle`; resolves with the
   * entries in the order they were handed out, once their settlements are recorded.
   */
  drain(outbox: O, settle: (entry: OutboxEntry) => EntrySettlement): Promise<OutboxEntry[]>;
}

const ack = (): EntrySettlement => ({ kind: 'ack' });

export const ROOMY: OutboxLimits = { max_bytes: 1 << 30, min_free_bytes: 0 };

export function entries(from: number, to: number, body = (i: number) => `{"n":${i}}`): OutboxAppend[] {
  return Array.from({ length: to - from + 1 }, (_, k) => ({ id: `ev-${from + k}`, sequence: from + k, body: body(from + k) }));
}

/** The fields of a state that do not depend on the clock. */
export function counts(s: OutboxState) {
  return {
    pending: s.pending,
    total_delivered: s.total_delivered,
    total_failed: s.total_failed,
    replay_gaps: s.replay_gaps,
    dead_letters: s.dead_letters,
    write_blocked: s.outbox_storage.write_blocked,
    bytes: s.outbox_storage.bytes,
  };
}

const ids = (list: { id: string }[]): string[] => list.map((e) => e.id);

/** Runs a test body on the `billing` outbox of a fresh backing, closing everything after. */
export function outboxRunner<O extends Outbox>(makeBacking: () => Promise<OutboxBacking<O>>) {
  return (body: (ob: O, reopen: () => Promise<O>, backing: OutboxBacking<O>) => Promise<void>, limits = ROOMY) => async () => {
    const backing = await makeBacking();
    const stores: OutboxStore<O>[] = [];
    const open = async (): Promise<O> => {
      const store = await backing.open(limits);
      stores.push(store);
      return store.open('billing');
    };
    try {
      const first = await open();
      await body(
        first,
        async () => {
          await stores.at(-1)!.close();
          return open();
        },
        backing,
      );
    } finally {
      for (const s of stores) await s.close();
      await backing.dispose();
    }
  };
}

/**
 * The one contract every outbox store must keep (actors/contracts/outbox.ts), run
 * against each store by its spec file, whoever delivers it. `makeBacking` gives each
 * test fresh data.
 */
export function outboxContract<O extends Outbox>(name: string, makeBacking: () => Promise<OutboxBacking<O>>, after?: () => Promise<void>): void {
  const test = suite(`outbox contract: ${name}`);
  if (after) test.after(after);
  const withOutbox = outboxRunner(makeBacking);

  test(
    'delivers entries in append order, each once, with their fields',
    withOutbox(async (ob, _reopen, { drain }) => {
      const before = Date.now();
      await ob.append(entries(1, 3));
      await ob.append(entries(4, 5));
      const after = Date.now();
      const first = await drain(ob, ack);
      assert.equal(ids(first), ['ev-1', 'ev-2', 'ev-3', 'ev-4', 'ev-5']);
      const { enqueued_at_unix_ms: at, ...rest } = first[0]!;
      assert.equal(rest, { id: 'ev-1', sequence: 1, body: '{"n":1}', attempts: 0, replayed_at_unix_ms: null });
      assert.ok(at >= before && at <= after, 'enqueued_at is the append time');
      assert.equal(counts(await ob.state()), { pending: 0, total_delivered: 5, total_failed: 0, replay_gaps: 0, dead_letters: 0, write_blocked: false, bytes: 0 });
      assert.equal(await drain(ob, ack), []);
    }),
  );

  test(
    'a retry counts the failed attempt and last_error and holds the entry until notBefore',
    withOutbox(async (ob, _reopen, { drain }) => {
      await ob.append(entries(1, 2));
      const at = Date.now();
      const notBefore = at + 600;
      const first = await drain(ob, (e) => (e.id === 'ev-1' ? { kind: 'retry', error: 'HTTP 503 from receiver', notBeforeUnixMs: notBefore } : ack()));
      assert.equal(ids(first), ['ev-1', 'ev-2']);
      const s = await ob.state();
      assert.equal(counts(s), { pending: 1, total_delivered: 1, total_failed: 1, replay_gaps: 0, dead_letters: 0, write_blocked: false, bytes: 7 });
      assert.is(s.last_error?.message, 'HTTP 503 from receiver');
      assert.ok(s.last_error!.at_unix_ms >= at && s.last_error!.at_unix_ms <= Date.now());
      assert.equal(await drain(ob, ack), [], 'ev-1 is not due yet');
      await sleep(Math.max(0, notBefore - Date.now()) + 100);
      const again = await drain(ob, ack);
      assert.equal(ids(again), ['ev-1']);
      assert.is(again[0]!.attempts, 1);
    }),
  );

  test(
    'a retry whose notBefore has passed is due at once',
    withOutbox(async (ob, _reopen, { drain }) => {
      await ob.append(entries(1, 1));
      let attempts = 0;
      const seen = await drain(ob, () => (++attempts < 3 ? { kind: 'retry', error: 'timeout', notBeforeUnixMs: Date.now() - 1 } : ack()));
      assert.equal(seen.map((e) => [e.id, e.attempts]), [['ev-1', 0], ['ev-1', 1], ['ev-1', 2]]);
      assert.equal(counts(await ob.state()), { pending: 0, total_delivered: 1, total_failed: 2, replay_gaps: 0, dead_letters: 0, write_blocked: false, bytes: 0 });
    }),
  );

  test(
    'dead letters leave pending, are listed with their error, and replay with attempts 0',
    withOutbox(async (ob, _reopen, { drain }) => {
      await ob.append(entries(1, 2));
      const before = Date.now();
      let retried = false;
      await drain(ob, (e): EntrySettlement => {
        if (e.id === 'ev-1' && !retried) {
          retried = true;
          return { kind: 'retry', error: 'HTTP 500', notBeforeUnixMs: 0 };
        }
        return { kind: 'dead', error: e.id === 'ev-1' ? 'HTTP 400 bad request' : 'HTTP 410 gone' };
      });
      await ob.append(entries(3, 3));
      const s = await ob.state();
      assert.equal(counts(s), { pending: 1, total_delivered: 0, total_failed: 3, replay_gaps: 0, dead_letters: 2, write_blocked: false, bytes: 21 });
      const dead = await ob.listDeadLetters(10);
      assert.equal(ids(dead).sort(), ['ev-1', 'ev-2']);
      const one = dead.find((d) => d.id === 'ev-1')!;
      assert.equal([one.error, one.attempts, one.sequence, one.body], ['HTTP 400 bad request', 2, 1, '{"n":1}']);
      assert.ok(one.dead_at_unix_ms >= before);
      assert.is((await ob.listDeadLetters(1)).length, 1);

      assert.is(await ob.replayDeadLetters(['ev-2']), 1);
      assert.equal(ids(await ob.listDeadLetters(10)), ['ev-1']);
      const replayed = await drain(ob, ack);
      assert.equal(ids(replayed).sort(), ['ev-2', 'ev-3'], 'dead letters are not delivered until replayed');
      const again = replayed.find((e) => e.id === 'ev-2')!;
      assert.is(again.attempts, 0);
      assert.ok(again.replayed_at_unix_ms! >= before);
      assert.is(await ob.replayDeadLetters(), 1);
      assert.equal(counts(await ob.state()), { pending: 1, total_delivered: 2, total_failed: 3, replay_gaps: 0, dead_letters: 0, write_blocked: false, bytes: 7 });
    }),
  );

  test(
    'an append after a reopen keeps the first entry ever appended, when it is the only one pending',
    withOutbox(async (ob, reopen, { drain }) => {
      await ob.append(entries(1, 1));
      const next = await reopen();
      await next.append(entries(2, 2));
      assert.is((await next.state()).pending, 2);
      assert.equal(ids(await drain(next, ack)), ['ev-1', 'ev-2']);
    }),
  );

  test(
    'counters, dead letters and gaps survive a reopen',
    withOutbox(async (ob, reopen, { drain }) => {
      await ob.append(entries(1, 3));
      const verdicts: Record<string, EntrySettlement> = {
        'ev-1': ack(),
        'ev-2': { kind: 'retry', error: 'HTTP 502', notBeforeUnixMs: Date.now() + 60_000 },
        'ev-3': { kind: 'dead', error: 'HTTP 404' },
      };
      await drain(ob, (e) => verdicts[e.id]!);
      await ob.append(entries(4, 4));
      await ob.recordGap({ from_sequence: 5, to_sequence: 9, at_unix_ms: 1_700_000_000_000 }, false);
      const next = await reopen();
      const s = await next.state();
      assert.equal(counts(s), { pending: 2, total_delivered: 1, total_failed: 2, replay_gaps: 1, dead_letters: 1, write_blocked: false, bytes: 21 });
      assert.is(s.last_error?.message, 'HTTP 404');
      assert.equal(s.gaps, [{ from_sequence: 5, to_sequence: 9, at_unix_ms: 1_700_000_000_000 }]);
      assert.equal(ids(await next.listDeadLetters(10)), ['ev-3']);
      assert.equal(ids(await drain(next, ack)), ['ev-4'], 'the retried entry keeps its notBefore');
    }),
  );

  test(
    'recordGap counts one gap per missed range, and a drained backlog never lowers replay_gaps',
    withOutbox(async (ob, _reopen, { drain }) => {
      await ob.recordGap({ from_sequence: 10, to_sequence: 11, at_unix_ms: 1000 }, false);
      await ob.recordGap({ from_sequence: 12, to_sequence: 14, at_unix_ms: 2000 }, true);
      await ob.recordGap({ from_sequence: 20, to_sequence: 20, at_unix_ms: 3000 }, false);
      await ob.append(entries(15, 19));
      await drain(ob, ack);
      const s = await ob.state();
      assert.equal(counts(s), { pending: 0, total_delivered: 5, total_failed: 0, replay_gaps: 2, dead_letters: 0, write_blocked: false, bytes: 0 });
      assert.equal(s.gaps, [
        { from_sequence: 10, to_sequence: 14, at_unix_ms: 1000 },
        { from_sequence: 20, to_sequence: 20, at_unix_ms: 3000 },
      ]);
    }),
  );

  test(
    'recordGap keeps the most recent gaps and counts them all',
    withOutbox(async (ob) => {
      for (let i = 1; i <= 25; i++) await ob.recordGap({ from_sequence: i * 10, to_sequence: i * 10, at_unix_ms: i }, false);
      const s = await ob.state();
      assert.is(s.replay_gaps, 25);
      assert.is(s.gaps.length, 20);
      assert.equal(s.gaps[0], { from_sequence: 60, to_sequence: 60, at_unix_ms: 6 });
      assert.equal(s.gaps.at(-1), { from_sequence: 250, to_sequence: 250, at_unix_ms: 25 });
    }),
  );

  test(
    'a full outbox blocks writes with OUTBOX_WRITE_BLOCKED until deliveries free room',
    withOutbox(
      async (ob, _reopen, { drain }) => {
        const big = (i: number) => `{"n":${i},"pad":"${'x'.repeat(40)}"}`;
        await ob.append(entries(1, 1, big));
        const err = await ob.append(entries(2, 2, big)).catch((e: unknown) => e);
        assert.instance(err, OutboxWriteBlocked);
        assert.is((err as OutboxWriteBlocked).code, 'OUTBOX_WRITE_BLOCKED');
        assert.is((err as OutboxWriteBlocked).reason, 'max_bytes');
        let s = await ob.state();
        assert.equal(s.outbox_storage.write_blocked, true);
        assert.equal(s.outbox_storage.write_blocked_reason, 'max_bytes');
        assert.equal(counts(s).pending, 1, 'nothing of the refused append was kept');
        await drain(ob, ack);
        s = await ob.state();
        assert.equal([s.outbox_storage.write_blocked, s.outbox_storage.bytes], [false, 0]);
        await ob.append(entries(3, 3, big));
        assert.equal(ids(await drain(ob, ack)), ['ev-3']);
      },
      { max_bytes: 80, min_free_bytes: 0 },
    ),
  );

  test(
    'oldest_pending_age_ms follows the oldest pending entry',
    withOutbox(async (ob, _reopen, { drain }) => {
      assert.is((await ob.state()).oldest_pending_age_ms, null);
      const before = Date.now();
      await ob.append(entries(1, 1));
      await sleep(60);
      const beforeSecond = Date.now();
      await ob.append(entries(2, 2));
      const age = (await ob.state()).oldest_pending_age_ms!;
      // In ms, and no older than the test's own wait.
      assert.ok(age >= 50 && age <= Date.now() - before, `age ${age}`);
      const notBefore = Date.now() + 300;
      await drain(ob, (e) => (e.id === 'ev-1' ? ack() : { kind: 'retry', error: 'HTTP 503', notBeforeUnixMs: notBefore }));
      const second = (await ob.state()).oldest_pending_age_ms!;
      assert.ok(second <= Date.now() - beforeSecond, `ev-2 is the oldest pending (age ${second})`);
      await sleep(Math.max(0, notBefore - Date.now()) + 100);
      await drain(ob, ack);
      assert.is((await ob.state()).oldest_pending_age_ms, null);
    }),
  );

  test(
    'onAppend listeners hear each committed append until they unsubscribe',
    withOutbox(async (ob) => {
      let heard = 0;
      const off = ob.onAppend(() => heard++);
      await ob.append(entries(1, 2));
      await ob.append([]);
      off();
      await ob.append(entries(3, 3));
      assert.is(heard, 1);
    }),
  );

  test(
    'a closed outbox refuses calls with OUTBOX_CLOSED',
    withOutbox(async (ob) => {
      await ob.close();
      const err = await ob.append(entries(1, 1)).catch((e: unknown) => e);
      assert.instance(err, OutboxClosed);
      assert.is((err as OutboxClosed).code, 'OUTBOX_CLOSED');
    }),
  );

  test.run();
}
