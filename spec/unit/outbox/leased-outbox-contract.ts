import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { LeasedOutbox } from '../../../actors/contracts/outbox.js';
import { counts, entries, outboxRunner, type OutboxBacking } from './outbox-contract.js';

const ids = (list: { id: string }[]): string[] => list.map((e) => e.id);

/** What a store the node leases from (LeasedOutbox) keeps beyond the outbox contract. */
export function leasedOutboxContract(name: string, makeBacking: () => Promise<OutboxBacking<LeasedOutbox>>): void {
  const test = suite(`leased outbox contract: ${name}`);
  const withOutbox = outboxRunner(makeBacking);

  test(
    'leases entries in append order, each once',
    withOutbox(async (ob) => {
      await ob.append(entries(1, 5));
      assert.equal(ids(await ob.lease(3)), ['ev-1', 'ev-2', 'ev-3']);
      assert.equal(ids(await ob.lease(10)), ['ev-4', 'ev-5']);
      assert.equal(await ob.lease(10), []);
    }),
  );

  test(
    'ack removes entries from pending and counts total_delivered once',
    withOutbox(async (ob) => {
      await ob.append(entries(1, 4));
      await ob.lease(3);
      await Promise.all([ob.ack(['ev-1', 'ev-3', 'ev-9']), ob.ack(['ev-1'])]);
      await ob.ack(['ev-1']);
      assert.equal(counts(await ob.state()), { pending: 2, total_delivered: 2, total_failed: 0, replay_gaps: 0, dead_letters: 0, write_blocked: false, bytes: 14 });
      assert.equal(ids(await ob.lease(10)), ['ev-4'], 'ev-2 stays leased');
    }),
  );

  test(
    'ack, retry and deadLetter ignore ids that are not leased',
    withOutbox(async (ob) => {
      await ob.append(entries(1, 1));
      await ob.ack(['ev-1']);
      await ob.ack(['nope']);
      await ob.retry('nope', 'x', 0);
      await ob.deadLetter('nope', 'x');
      assert.equal(counts(await ob.state()), { pending: 1, total_delivered: 0, total_failed: 0, replay_gaps: 0, dead_letters: 0, write_blocked: false, bytes: 7 });
      assert.equal(ids(await ob.lease(10)), ['ev-1']);
    }),
  );

  test(
    'entries leased and never acknowledged are pending again, in order, after a reopen',
    withOutbox(async (ob, reopen) => {
      await ob.append(entries(1, 4));
      assert.equal(ids(await ob.lease(3)), ['ev-1', 'ev-2', 'ev-3']);
      await ob.ack(['ev-2']);
      const next = await reopen();
      await next.append(entries(5, 5));
      assert.equal(ids(await next.lease(10)), ['ev-1', 'ev-3', 'ev-4', 'ev-5'], 'appends after a reopen come after the old entries');
      assert.is((await next.state()).pending, 4);
    }),
  );

  test(
    'an entry that is pending and unleased again is leased again, wherever it stands among leased ones',
    withOutbox(async (ob) => {
      await ob.append(entries(1, 4));
      assert.equal(ids(await ob.lease(2)), ['ev-1', 'ev-2']);
      await ob.retry('ev-1', 'boom', 0);
      assert.equal(ids(await ob.lease(10)), ['ev-1', 'ev-3', 'ev-4'], 'the retried entry is due at once');
      await ob.deadLetter('ev-2', 'gone');
      await ob.ack(['ev-1', 'ev-3', 'ev-4']);
      assert.is(await ob.replayDeadLetters(), 1);
      assert.equal(ids(await ob.lease(10)), ['ev-2'], 'a replayed dead letter below every lease so far');
      await ob.append(entries(5, 5));
      await ob.append(entries(5, 6));
      assert.equal(ids(await ob.lease(10)), ['ev-5', 'ev-6'], 'an id appended twice is leased once at a time');
      await ob.ack(['ev-5']);
      assert.equal(ids(await ob.lease(10)), ['ev-5'], 'then its second copy');
    }),
  );

  test.run();
}
