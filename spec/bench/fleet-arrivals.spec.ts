import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { collectArrivals, delivered, percentile, type Arrival, type TakenRequest } from './fleet-arrivals.js';

const envelope = (id: string, node: string, occurred: number): Record<string, unknown> => ({ event_id: id, node_id: node, occurred_at_unix_ms: occurred });

test('percentile takes the nearest rank, whatever the order', () => {
  const values = [50, 10, 40, 20, 30];
  assert.is(percentile(values, 50), 30);
  assert.is(percentile(values, 99), 50);
  assert.is(percentile(values, 1), 10);
  assert.is(percentile(Array.from({ length: 100 }, (_, i) => i + 1), 99), 99);
  assert.is(percentile([], 50), null);
});

test('arrivals count each event once, at its first acknowledgement, from single bodies and batches; refused requests count nothing', () => {
  const requests: TakenRequest[] = [
    { at: 1000, status: 503, body: JSON.stringify(envelope('a', 'n1', 900)) },
    { at: 1100, status: 200, body: JSON.stringify(envelope('a', 'n1', 900)) },
    { at: 1200, status: 204, body: JSON.stringify([envelope('b', 'n2', 1150), envelope('c', 'n2', 1160)]) },
  ];
  const into = new Map<string, Arrival>();
  assert.is(collectArrivals(into, requests, 0), 3);
  const later: TakenRequest[] = [...requests, { at: 1500, status: 200, body: JSON.stringify([envelope('a', 'n1', 900), envelope('d', 'n1', 1400)]) }];
  assert.is(collectArrivals(into, later, 3), 4);
  assert.equal([...into.entries()], [
    ['a', { nodeId: 'n1', occurredAt: 900, at: 1100 }],
    ['b', { nodeId: 'n2', occurredAt: 1150, at: 1200 }],
    ['c', { nodeId: 'n2', occurredAt: 1160, at: 1200 }],
    ['d', { nodeId: 'n1', occurredAt: 1400, at: 1500 }],
  ]);
});

test('delivered takes the arrivals since a moment: their rate up to the last one and their latency', () => {
  const arrivals: Arrival[] = [
    { nodeId: 'n1', occurredAt: 0, at: 500 },
    { nodeId: 'n1', occurredAt: 1000, at: 1010 },
    { nodeId: 'n2', occurredAt: 1000, at: 1030 },
    { nodeId: 'n2', occurredAt: 2000, at: 3000 },
  ];
  assert.equal(delivered(arrivals, 1000), { events: 3, perSecond: 1.5, p50Ms: 30, p99Ms: 1000 });
  assert.equal(delivered([], 1000), { events: 0, perSecond: 0, p50Ms: null, p99Ms: null });
});

test.run();
