import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { LeasedOutbox } from '../../../actors/contracts/outbox.js';
import { JournalOutboxStore } from '../../../actors/outbox/journal-outbox-store.js';
import { DeliveryTrouble } from '../../../actors/webhook/delivery-trouble.js';
import { WebhookConnector } from '../../../actors/webhook/webhook-connector.js';
import { waitFor } from '../../support/wait-for.js';
import { startWebhookReceiver } from '../../support/webhook-receiver.js';

const TOKEN = 'connector-spec-token';
const LIMITS = { max_bytes: 64 * 1024 * 1024, min_free_bytes: 0 };

/**
 * A real embedded outbox whose first call of one kind does not settle until released, as
 * a Redis command in flight when Redis died waits for Redis to return: an ack is made only
 * then (it had not reached Redis), a lease is made at once and answers then (it had).
 */
function stalling(outbox: LeasedOutbox, method: 'ack' | 'lease'): { outbox: LeasedOutbox; release: () => void; stalled: () => number } {
  let stalled = 0;
  let released = false;
  const held: (() => void)[] = [];
  const wrapped = new Proxy(outbox, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (key !== method || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
      return (...args: unknown[]) => {
        const call = (): Promise<unknown> => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if (released || stalled > 0) return call();
        stalled++;
        const made = method === 'lease' ? call() : null;
        return new Promise((resolve, reject) => held.push(() => void (made ?? call()).then(resolve, reject)));
      };
    },
  });
  return { outbox: wrapped, stalled: () => stalled, release: () => ((released = true), held.splice(0).forEach((go) => go())) };
}

interface Context {
  ids: string[];
  acked: () => string[];
  outbox: LeasedOutbox;
  release: () => void;
}

async function withConnector(method: 'ack' | 'lease', body: (ctx: Context) => Promise<void>): Promise<void> {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'weir-connector-'));
  const store = new JournalOutboxStore({ stateDir, limits: LIMITS });
  const receiver = await startWebhookReceiver(TOKEN);
  const real = await store.open('hook');
  const { outbox, release, stalled } = stalling(real, method);
  const connector = new WebhookConnector(outbox, {
    target: { url: receiver.url(), token: TOKEN, timeoutMs: 2000 },
    batchSize: 1,
    concurrency: 1,
    retryForS: 60,
    backoff: { baseMs: 50, capMs: 100 },
    pollMs: 50,
    storeWaitMs: 200,
    trouble: new DeliveryTrouble('hook', pino({ level: 'silent' })),
  });
  const ids = ['e-1', 'e-2', 'e-3', 'e-4'];
  try {
    await real.append(ids.map((id, i) => ({ id, sequence: i + 1, body: JSON.stringify({ event_id: id }) })));
    connector.start();
    await body({ ids, outbox: real, release, acked: () => receiver.acknowledged().map((e) => e['event_id'] as string) });
    assert.is(stalled(), 1, `one ${method} was held`);
  } finally {
    release();
    await connector.stop();
    await store.close();
    await receiver.close();
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
}

test('an ack that never returns does not hold the only delivery slot: the other entries go out', async () => {
  await withConnector('ack', async ({ ids, acked, outbox }) => {
    await waitFor(() => ids.every((id) => acked().includes(id)), 5000, 'every entry delivered', 20);
    // Three acks were recorded; the held one keeps its entry leased, so it is not sent twice.
    await waitFor(async () => (await outbox.state()).pending === 1, 2000, 'one entry left pending', 20);
    assert.is(acked().length, 4);
  });
});

test('a lease that answers late has its entries delivered then, and the loop goes on meanwhile', async () => {
  await withConnector('lease', async ({ ids, acked, release }) => {
    await waitFor(() => ids.slice(1).every((id) => acked().includes(id)), 5000, 'the entries leased after the held lease', 20);
    assert.not.ok(acked().includes('e-1'), 'the held lease has not answered yet');
    release();
    await waitFor(() => acked().includes('e-1'), 5000, 'the late lease delivered', 20);
    assert.is(acked().length, 4);
  });
});

test.run();
