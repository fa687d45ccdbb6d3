import net from 'node:net';
import { once } from 'node:events';
import pino from 'pino';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConnectionBudget, inboundConnectionLimit, MIN_INBOUND_CONNECTIONS, RESERVED_DESCRIPTORS } from '../../../actors/inbounds/connection-budget.js';

test('two descriptors a connection, the reserve kept, never under the minimum, no limit unknown', () => {
  assert.is(inboundConnectionLimit(20_000), (20_000 - RESERVED_DESCRIPTORS) / 2);
  assert.is(inboundConnectionLimit(RESERVED_DESCRIPTORS + 1001), 500);
  assert.is(inboundConnectionLimit(600), MIN_INBOUND_CONNECTIONS);
  assert.is(inboundConnectionLimit(null), Infinity);
});

test('a connection over the budget is refused until one held closes', async () => {
  const server = net.createServer();
  const accepted: net.Socket[] = [];
  server.on('connection', (s) => accepted.push(s));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as net.AddressInfo).port;
  const clients = await Promise.all(
    [0, 1, 2].map(async () => {
      const c = net.connect(port, '127.0.0.1');
      await once(c, 'connect');
      return c;
    }),
  );
  while (accepted.length < 3) await new Promise((r) => setImmediate(r));
  const budget = new ConnectionBudget(2, pino({ level: 'silent' }));
  try {
    assert.equal(accepted.map((s) => budget.admit(s)), [true, true, false]);
    accepted[0]!.destroy();
    await once(accepted[0]!, 'close');
    assert.ok(budget.admit(accepted[2]!), 'a place freed by a close is taken again');
  } finally {
    for (const c of [...clients, ...accepted]) c.destroy();
    server.close();
  }
});

test.run();
