import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FAR_MS, settlesBeforeFar } from '../../support/far-bound.js';
import type { HookQuery } from '../../../actors/hook/hook-messages.js';
import { IpcHookClient, type IpcHookOptions } from '../../../actors/hook/ipc-hook-client.js';
import { hookSocketPath, startFakeHook } from './fake-hook.js';

function query(flow_id: string): HookQuery {
  return {
    flow_id,
    network: 'tcp',
    inbound: { tag: 'socks-in', protocol: 'socks' },
    source: { ip: '127.0.0.1', port: 40000 },
    target: { host: 'example.test', port: 443 },
    auth: { scheme: 'noauth', principal_key: null },
  };
}

function client(socketPath: string, extra: Partial<IpcHookOptions> = {}): { hook: IpcHookClient; outages: string[]; bad: string[] } {
  const outages: string[] = [];
  const bad: string[] = [];
  const hook = new IpcHookClient({
    path: socketPath,
    timeoutMs: 200,
    retryMs: 0,
    onUnreachable: (m) => outages.push(m),
    onBadAnswer: (m) => bad.push(m),
    ...extra,
  });
  return { hook, outages, bad };
}


test('asks with the flow and gets allow, deny and route answers over one connection', async () => {
  const fake = await startFakeHook((q) => {
    if (q['flow_id'] === 'f-deny') return { action: 'deny' };
    if (q['flow_id'] === 'f-route') return { action: 'route', outbound: 'hop-a' };
    return { action: 'allow' };
  });
  const { hook, outages } = client(fake.path);
  assert.equal(await hook.ask(query('f-allow')), { action: 'allow' });
  assert.equal(await hook.ask(query('f-deny')), { action: 'deny' });
  assert.equal(await hook.ask(query('f-route')), { action: 'route', outbound: 'hop-a' });
  assert.is(fake.connections(), 1, 'one persistent connection');
  assert.equal(fake.questions[0], { id: 1, ...query('f-allow') });
  assert.equal(fake.questions.map((q) => q.id), [1, 2, 3]);
  assert.equal(outages, []);
  hook.close();
  await fake.close();
});

test('matches answers to questions by id, whatever their order', async () => {
  const fake = await startFakeHook(async (q) => {
    await sleep(q['flow_id'] === 'slow' ? 80 : 0);
    return { action: q['flow_id'] === 'slow' ? 'deny' : 'allow' };
  });
  const { hook } = client(fake.path);
  const [slow, fast] = await Promise.all([hook.ask(query('slow')), hook.ask(query('fast'))]);
  assert.equal([slow, fast], [{ action: 'deny' }, { action: 'allow' }]);
  hook.close();
  await fake.close();
});

test('allows and reports once when nothing listens, however many flows ask', async () => {
  const absent = hookSocketPath('absent.sock');
  const { hook, outages } = client(absent.path);
  const verdicts = await Promise.all([hook.ask(query('a')), hook.ask(query('b'))]);
  verdicts.push(await hook.ask(query('c')));
  assert.equal(verdicts, [{ action: 'allow' }, { action: 'allow' }, { action: 'allow' }]);
  assert.is(outages.length, 1);
  assert.match(outages[0]!, /cannot connect to the hook at .*absent\.sock/);
  hook.close();
  absent.remove();
});

test('allows a flow the hook does not answer in time, and reports it', async () => {
  const fake = await startFakeHook(() => null);
  const { hook, outages } = client(fake.path, { timeoutMs: 100 });
  assert.equal(await settlesBeforeFar(hook.ask(query('a')), 'the unanswered question'), { action: 'allow' });
  assert.equal(outages, ['the hook did not answer within 100 ms']);
  hook.close();
  await fake.close();
});

test('reports a new outage only after the hook answered in between', async () => {
  let answering = true;
  const fake = await startFakeHook(() => (answering ? { action: 'allow' } : null));
  const { hook, outages } = client(fake.path, { timeoutMs: 80 });
  await hook.ask(query('a'));
  answering = false;
  await hook.ask(query('b'));
  await hook.ask(query('c'));
  assert.is(outages.length, 1, 'one outage so far');
  answering = true;
  await hook.ask(query('d'));
  answering = false;
  await hook.ask(query('e'));
  assert.is(outages.length, 2, 'a second outage after a good answer');
  hook.close();
  await fake.close();
});

test('reconnects after the hook hung up, and allows the question it dropped', async () => {
  let silent = true;
  const fake = await startFakeHook(() => (silent ? null : { action: 'deny' }));
  const { hook, outages } = client(fake.path, { timeoutMs: 1000 });
  const dropped = hook.ask(query('a'));
  await sleep(50);
  fake.hangUp();
  assert.equal(await dropped, { action: 'allow' });
  assert.equal(outages, ['the hook closed the connection before answering']);
  silent = false;
  assert.equal(await hook.ask(query('b')), { action: 'deny' });
  assert.is(fake.connections(), 2);
  hook.close();
  await fake.close();
});

test('gives up a connection on which the hook went silent, and asks the next question on a new one', async () => {
  // A hook that hung on its first connection, or restarted and left it dangling, yet accepts a new one.
  const fake = await startFakeHook((_q, connection) => (connection === 1 ? null : { action: 'deny' }));
  const { hook, outages } = client(fake.path, { timeoutMs: 100 });
  assert.equal(await hook.ask(query('a')), { action: 'allow' });
  assert.equal(await hook.ask(query('b')), { action: 'deny' }, 'answered on the second connection');
  assert.equal(await hook.ask(query('c')), { action: 'deny' });
  assert.is(fake.connections(), 2);
  assert.equal(outages, ['the hook did not answer within 100 ms'], 'one report for the outage');
  hook.close();
  await fake.close();
});

test('keeps the connection of a slow hook whose late answer came before the next question', async () => {
  let answerLate!: () => void;
  const fake = await startFakeHook((q) =>
    q['flow_id'] === 'slow' ? new Promise((resolve) => (answerLate = () => resolve({ action: 'deny' }))) : { action: 'deny' },
  );
  const { hook, outages } = client(fake.path, { timeoutMs: 100 });
  assert.equal(await hook.ask(query('slow')), { action: 'allow' }, 'timed out');
  answerLate();
  // The fake writes at once into the client's socket; a timer's wait lets the client read it.
  await sleep(50);
  assert.equal(await hook.ask(query('next')), { action: 'deny' });
  assert.is(fake.connections(), 1, 'the late answer showed the connection alive');
  assert.is(outages.length, 1);
  hook.close();
  await fake.close();
});

test('keeps the connection when another question was answered after the unanswered one was asked', async () => {
  const fake = await startFakeHook((q) => (q['flow_id'] === 'lost' ? null : { action: 'deny' }));
  const { hook } = client(fake.path, { timeoutMs: 100 });
  const [lost, answered] = await Promise.all([hook.ask(query('lost')), hook.ask(query('answered'))]);
  assert.equal([lost, answered], [{ action: 'allow' }, { action: 'deny' }]);
  assert.equal(await hook.ask(query('next')), { action: 'deny' });
  assert.is(fake.connections(), 1);
  hook.close();
  await fake.close();
});

test('after a failed connect, allows without asking until the retry time has passed', async () => {
  let now = 1000;
  const later = hookSocketPath();
  const { hook, outages } = client(later.path, { retryMs: 500, now: () => now });
  await hook.ask(query('a'));
  const fake = await startFakeHook(() => ({ action: 'deny' }), later.path);
  assert.equal(await hook.ask(query('b')), { action: 'allow' }, 'still in the quiet time');
  assert.is(fake.connections(), 0);
  now += 500;
  assert.equal(await hook.ask(query('c')), { action: 'deny' });
  assert.is(outages.length, 1);
  hook.close();
  await fake.close();
  later.remove();
});

test('allows on an answer that is not one, and says so', async () => {
  const fake = await startFakeHook((q) => (q['flow_id'] === 'a' ? { action: 'perhaps' } : '{"id":999,"action":"deny"}'));
  const { hook, outages, bad } = client(fake.path, { timeoutMs: 100 });
  assert.equal(await hook.ask(query('a')), { action: 'allow' });
  assert.equal(bad, ['the hook\'s answer to question 1 is not valid: unknown action "perhaps"']);
  assert.equal(await hook.ask(query('b')), { action: 'allow' }, 'an answer to no question is ignored: timeout');
  assert.is(outages.length, 1);
  hook.close();
  await fake.close();
});

test('a line that is not JSON while one question waits is that question\'s bad answer: allowed at once, not an outage', async () => {
  const fake = await startFakeHook(() => 'this is not JSON');
  // A timeout as far as the spec's own bound: only a bad answer can settle the question in time.
  const { hook, outages, bad } = client(fake.path, { timeoutMs: FAR_MS });
  assert.equal(await settlesBeforeFar(hook.ask(query('a')), 'the question'), { action: 'allow' });
  assert.equal([bad, outages], [["the hook's answer to question 1 is not valid: not JSON"], []]);
  hook.close();
  await fake.close();
});

test('hangs up on an answer line over 64 KiB, allows that flow, and asks again on a new connection', async () => {
  const fake = await startFakeHook((q) => (q['flow_id'] === 'huge' ? `{"id":${q.id},"action":"deny","pad":"${'x'.repeat(70_000)}"}` : { action: 'deny' }));
  const { hook, outages, bad } = client(fake.path, { timeoutMs: 5000 });
  assert.equal(await hook.ask(query('huge')), { action: 'allow' });
  assert.equal(outages, ['the hook closed the connection before answering']);
  assert.equal(bad, []);
  assert.equal(await hook.ask(query('next')), { action: 'deny' });
  assert.is(fake.connections(), 2);
  hook.close();
  await fake.close();
});

test('close answers open questions allow without a report', async () => {
  const fake = await startFakeHook(() => null);
  const { hook, outages } = client(fake.path, { timeoutMs: 5000 });
  const open = hook.ask(query('a'));
  await sleep(30);
  hook.close();
  assert.equal(await open, { action: 'allow' });
  assert.equal(await hook.ask(query('b')), { action: 'allow' });
  assert.equal(outages, []);
  await fake.close();
});

test.run();
