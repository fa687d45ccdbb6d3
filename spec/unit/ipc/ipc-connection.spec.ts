import { Duplex } from 'node:stream';
import { pino } from 'pino';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ControlError } from '../../../actors/control/control-error.js';
import { zeroUdpStats } from '../../../actors/flows/flow-stats.js';
import { IpcConnection, type IpcConnectionOptions } from '../../../ipc/ipc-connection.js';
import type { IpcControl } from '../../../ipc/ipc-ops.js';
import type { StatsSnapshot } from '../../../streams/contract.js';
import { EventBus } from '../../../streams/event-bus.js';
import { resumeEvents } from '../../../streams/subscription.js';
import { typeFilter } from '../../../streams/type-filter.js';
import { duplexPair } from '../../support/duplex-pair.js';
import { LineClient } from './line-client.js';

const STATS: StatsSnapshot = {
  active_sessions: 1,
  total_started: 2,
  completed_sessions: 1,
  failed_sessions: 0,
  blocked_sessions: 0,
  direct_sessions: 1,
  chained_sessions: 0,
  bytes_up: 10,
  bytes_down: 20,
  udp_upstream: zeroUdpStats(),
};

function notHere(): never {
  throw new Error('not used in this spec');
}

function stubOps(bus: EventBus, overrides: Partial<IpcControl> = {}): IpcControl {
  return {
    stats: () => STATS,
    flowSlices: async function* () {},
    activeFlowPage: notHere,
    flow: notHere,
    completedFlows: notHere,
    closeFlow: (id) => {
      throw new ControlError('FLOW_NOT_FOUND', `no active flow "${id}"`);
    },
    select: notHere,
    probe: notHere,
    applyConfig: notHere,
    reload: notHere,
    deadLetters: notHere,
    replayDeadLetters: notHere,
    setMode: notHere,
    runtime: notHere,
    policies: () => [],
    principals: notHere,
    resetPrincipals: notHere,
    freshSinks: () => Promise.resolve([]),
    setLogLevel: notHere,
    subscribe: (o) => resumeEvents(bus, () => [], { filter: typeFilter(o.types) }),
    audit: () => {},
    ...overrides,
  };
}

function options(ops: IpcControl, overrides: Partial<IpcConnectionOptions> = {}): IpcConnectionOptions {
  return {
    ops,
    log: pino({ level: 'silent' }),
    maxLineBytes: 1024,
    maxBacklogBytes: 4096,
    tickMs: 5,
    closeGraceMs: 50,
    lineTimeoutMs: 30_000,
    ...overrides,
  };
}

function serve(ops: IpcControl, overrides: Partial<IpcConnectionOptions> = {}): { conn: IpcConnection; client: LineClient } {
  const [server, client] = duplexPair();
  return { conn: new IpcConnection(server, options(ops, overrides)), client: new LineClient(client) };
}

test('answers a garbage line with BAD_REQUEST and the same connection answers the next request', async () => {
  const { client } = serve(stubOps(new EventBus({ ringCapacity: 8, ringMaxBytes: 1 << 16 })));
  client.send('this is not json\n');
  assert.equal(await client.next(), { type: 'error', code: 'BAD_REQUEST', message: 'the line is not valid JSON' });
  client.send({ id: 2, stats: {} });
  assert.equal(await client.next(), { type: 'stats', stats: STATS, id: 2 });
});

test('answers an unknown operation with UNSUPPORTED_OPERATION naming the known ones', async () => {
  const { client } = serve(stubOps(new EventBus({ ringCapacity: 8, ringMaxBytes: 1 << 16 })));
  client.send({ id: 'u', op: 'flows.explode' });
  assert.equal(await client.next(), {
    type: 'error',
    code: 'UNSUPPORTED_OPERATION',
    message:
      'unknown operation "flows.explode" (known: flows.list, flows.completed, flows.get, flows.close, select, policies.probe, mode, status, policies, principals, principals.reset, sinks, log_level, config.apply, config.reload, sinks.dead_letters, sinks.replay)',
    id: 'u',
  });
});

test('answers an operation missing its field with INVALID_BODY', async () => {
  const { client } = serve(stubOps(new EventBus({ ringCapacity: 8, ringMaxBytes: 1 << 16 })));
  client.send({ op: 'flows.close' });
  assert.equal(await client.next(), { type: 'error', code: 'INVALID_BODY', message: 'flow_id: Invalid input: expected string, received undefined' });
});

test('carries a control error code, message and details', async () => {
  const select = (): never => {
    throw new ControlError('NOT_A_MEMBER', '"x" is not a direct member of selector "proxy"', { members: ['a', 'b'] });
  };
  const { client } = serve(stubOps(new EventBus({ ringCapacity: 8, ringMaxBytes: 1 << 16 }), { select }));
  client.send({ op: 'select', selector: 'proxy', member: 'x' });
  assert.equal(await client.next(), {
    type: 'error',
    code: 'NOT_A_MEMBER',
    message: '"x" is not a direct member of selector "proxy"',
    details: { members: ['a', 'b'] },
  });
});

test('config.apply takes the REST body as its fields, as every other operation does', async () => {
  const bodies: unknown[] = [];
  const applyConfig = async (body: unknown): Promise<never> => {
    bodies.push(body);
    throw new ControlError('CONFIG_INVALID', 'checked');
  };
  const { client } = serve(stubOps(new EventBus({ ringCapacity: 8, ringMaxBytes: 1 << 16 }), { applyConfig }));
  client.send('{"id":1,"op":"config.apply","upsert_sinks":[{"tag":"bill"}],"remove_sinks":["old"]}\n');
  assert.is((await client.next())['code'], 'CONFIG_INVALID');
  assert.equal(bodies, [{ upsert_sinks: [{ tag: 'bill' }], remove_sinks: ['old'] }]);
});

test('answers an unexpected failure with INTERNAL and does not show its message', async () => {
  const policies = (): never => {
    throw new Error('secret internals');
  };
  const { client } = serve(stubOps(new EventBus({ ringCapacity: 8, ringMaxBytes: 1 << 16 }), { policies }));
  client.send({ op: 'policies' });
  assert.equal(await client.next(), { type: 'error', code: 'INTERNAL', message: 'internal error' });
});

test('answers each request of one chunk in order and skips blank lines', async () => {
  const { client } = serve(stubOps(new EventBus({ ringCapacity: 8, ringMaxBytes: 1 << 16 })));
  client.send('\n  \n{"id":1,"op":"flows.list"}\r\n{"id":2,"op":"sinks"}\n');
  assert.equal(await client.next(), { type: 'result', op: 'flows.list', result: [], id: 1 });
  assert.equal(await client.next(), { type: 'result', op: 'sinks', result: [], id: 2 });
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(client.pending.length, 0);
});

test('answers in request order when an operation waits, and an async failure is an error reply', async () => {
  const probe = async (tag: string): Promise<never> => {
    await new Promise((r) => setTimeout(r, 30));
    throw new ControlError('POLICY_NOT_FOUND', `no url_test group "${tag}"`);
  };
  const { client } = serve(stubOps(new EventBus({ ringCapacity: 8, ringMaxBytes: 1 << 16 }), { probe }));
  client.send('{"id":1,"op":"policies.probe","tag":"auto"}\n{"id":2,"op":"flows.list"}\n');
  assert.equal(await client.next(), { type: 'error', code: 'POLICY_NOT_FOUND', message: 'no url_test group "auto"', id: 1 });
  assert.equal(await client.next(), { type: 'result', op: 'flows.list', result: [], id: 2 });
});

test('a client that ends its side after its requests still gets every reply', async () => {
  const probe = async (): Promise<never> => {
    await new Promise((r) => setTimeout(r, 30));
    throw new ControlError('UNAVAILABLE', 'probe failed');
  };
  const { conn, client } = serve(stubOps(new EventBus({ ringCapacity: 8, ringMaxBytes: 1 << 16 }), { probe }));
  client.send('{"op":"policies.probe","tag":"auto"}\n{"stats":{}}\n');
  client.stream.end();
  await client.ended;
  assert.equal(client.pending.map((l) => l['type']), ['error', 'stats']);
  assert.equal(await conn.closed, { error: null });
});

test('ends the connection after an oversized line, with BODY_TOO_LARGE and error line_too_long', async () => {
  const { conn, client } = serve(stubOps(new EventBus({ ringCapacity: 8, ringMaxBytes: 1 << 16 })));
  client.send(`{"op":"flows.list"}\n{"pad":"${'x'.repeat(2000)}"}\n{"op":"sinks"}\n`);
  assert.equal(await client.next(), { type: 'result', op: 'flows.list', result: [] });
  assert.equal(await client.next(), {
    type: 'error',
    code: 'BODY_TOO_LARGE',
    message: 'a request line may hold at most 1024 bytes',
  });
  await client.ended;
  client.stream.end();
  assert.equal(await conn.closed, { error: 'line_too_long' });
  assert.equal(client.pending.length, 0);
});

test('subscribe: ACK, then the flow.snapshot, then live events coalesced per tick', async () => {
  const bus = new EventBus({ ringCapacity: 8, ringMaxBytes: 1 << 16 });
  bus.publish({ event_type: 'engine.started', payload: { build_id: 'b', started_at_unix_ms: 1 } });
  const { client } = serve(stubOps(bus));
  client.send({ id: 's', type: 'subscribe' });
  assert.equal(await client.next(), { type: 'ack', subscribed: ['*'], id: 's' });
  const snapshot = await client.next();
  assert.equal([snapshot['event_type'], snapshot['sequence'], snapshot['payload']], ['flow.snapshot', 1, { watermark: 1, records: [] }]);
  bus.publish({ event_type: 'policy.selected', payload: { policy_tag: 'p', policy_kind: 'selector', selected: 'a', previous: 'b' } });
  bus.publish({ event_type: 'stats.sampled', payload: STATS });
  assert.equal([(await client.next())['sequence'], (await client.next())['sequence']], [2, 3]);
});

test('a request sent with subscribe is answered after the flow.snapshot: the baseline follows the ACK', async () => {
  const bus = new EventBus({ ringCapacity: 8, ringMaxBytes: 1 << 16 });
  const { client } = serve(stubOps(bus));
  client.send('{"id":"s","type":"subscribe"}\n{"id":2,"op":"sinks"}\n');
  assert.equal(await client.next(), { type: 'ack', subscribed: ['*'], id: 's' });
  assert.is((await client.next())['event_type'], 'flow.snapshot');
  assert.equal(await client.next(), { type: 'result', op: 'sinks', result: [], id: 2 });
});

test('a request sent with a subscribe that gets no snapshot is answered at once', async () => {
  const bus = new EventBus({ ringCapacity: 8, ringMaxBytes: 1 << 16 });
  const { client } = serve(stubOps(bus));
  client.send('{"id":"s","type":"subscribe","events":["stats.sampled"]}\n{"id":2,"op":"sinks"}\n');
  assert.equal(await client.next(), { type: 'ack', subscribed: ['stats.sampled'], id: 's' });
  assert.equal(await client.next(), { type: 'result', op: 'sinks', result: [], id: 2 });
});

test('subscribe with a whitelist of no flow types: no snapshot, only the listed types', async () => {
  const bus = new EventBus({ ringCapacity: 8, ringMaxBytes: 1 << 16 });
  const { client } = serve(stubOps(bus));
  client.send({ type: 'subscribe', events: ['policy.selected'] });
  assert.equal(await client.next(), { type: 'ack', subscribed: ['policy.selected'] });
  bus.publish({ event_type: 'stats.sampled', payload: STATS });
  bus.publish({ event_type: 'policy.selected', payload: { policy_tag: 'p', policy_kind: 'selector', selected: 'a', previous: 'b' } });
  const line = await client.next();
  assert.equal([line['event_type'], line['sequence']], ['policy.selected', 2]);
});

test('refuses a second subscribe on the same connection', async () => {
  const { client } = serve(stubOps(new EventBus({ ringCapacity: 8, ringMaxBytes: 1 << 16 })));
  client.send({ type: 'subscribe', events: ['stats.sampled'] });
  client.send({ id: 9, type: 'subscribe' });
  assert.equal(await client.next(), { type: 'ack', subscribed: ['stats.sampled'] });
  assert.equal(await client.next(), { type: 'error', code: 'BAD_REQUEST', message: 'this connection is already subscribed', id: 9 });
});

/**
 * A server side whose peer reads nothing until `open()`: what it writes stays in its
 * backlog. `open()` then takes everything and hangs up, as a late reader would.
 */
function stalledSocket(): { socket: Duplex; written: string[]; open(): void } {
  const held: (() => void)[] = [];
  const written: string[] = [];
  let flowing = false;
  const socket = new Duplex({
    read() {},
    write(chunk: Buffer, _enc, callback) {
      written.push(chunk.toString());
      if (flowing) callback();
      else held.push(() => callback());
    },
  });
  return {
    socket,
    written,
    open() {
      flowing = true;
      for (const release of held.splice(0)) release();
      socket.push(null);
    },
  };
}

test('cuts off a subscriber that leaves too much unread with a final SLOW_CONSUMER line', async () => {
  const bus = new EventBus({ ringCapacity: 8, ringMaxBytes: 1 << 16 });
  const stalled = stalledSocket();
  const conn = new IpcConnection(stalled.socket, options(stubOps(bus), { closeGraceMs: 5000 }));
  stalled.socket.push('{"type":"subscribe","events":["stats.sampled"]}\n');
  for (let i = 0; i < 30; i += 1) {
    bus.publish({ event_type: 'stats.sampled', payload: STATS });
    await new Promise((r) => setTimeout(r, 6));
  }
  stalled.open();
  const closed = await conn.closed;
  const lines = stalled.written.join('').trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(closed, { error: 'slow_consumer' });
  assert.equal(lines.at(-1), {
    type: 'error',
    code: 'SLOW_CONSUMER',
    message: 'the client left more than 4096 bytes unread; reconnect to subscribe again',
  });
  assert.ok(lines.length < 20, `the backlog stayed bounded (${lines.length} lines written)`);
  assert.equal(lines.slice(1, -1).every((l) => l['event_type'] === 'stats.sampled'), true);
});

test('close() ends the stream of a subscriber with a normal end', async () => {
  const { conn, client } = serve(stubOps(new EventBus({ ringCapacity: 8, ringMaxBytes: 1 << 16 })));
  client.send({ type: 'subscribe', events: ['stats.sampled'] });
  await client.next();
  conn.close();
  await client.ended;
  client.stream.end();
  assert.equal(await conn.closed, { error: null });
});

test.run();
