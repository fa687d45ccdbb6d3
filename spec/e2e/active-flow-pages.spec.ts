import type net from 'node:net';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ipcCall, NodeRefusedError } from '../../cli/ipc-client.js';
import type { FlowRecord } from '../../streams/contract.js';
import { socksConnect } from '../bench/socks5-client.js';
import { WAIT_MS } from '../support/far-bound.js';
import { fixture } from '../support/fixture.js';
import { freePorts } from '../support/free-port.js';
import { e2eConfig } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startNode } from '../support/start-node.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { runWeir } from '../support/weir-bin.js';

const TUNNELS = 5;
const API_KEY = 'e2e-api-key-not-a-secret';

interface Page {
  flows: FlowRecord[];
  next: number | null;
}

const setup = fixture(
  test,
  async () => {
    const [socksPort, controlPort] = await freePorts(2);
    const origin = await startOrigin();
    const base = e2eConfig({ stateDir: tempDir(), inbounds: [{ type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port: socksPort }] });
    const node = await startNode({ ...base, control: { listen: `127.0.0.1:${controlPort}`, api_key: API_KEY } });
    // Idle tunnels to the origin's HTTP port, opened one after another: tunnels[i] is the i-th flow opened.
    const connect = async (): Promise<net.Socket> => (await socksConnect(socksPort!, origin.port, WAIT_MS)).socket;
    const tunnels: net.Socket[] = [];
    while (tunnels.length < TUNNELS) tunnels.push(await connect());
    return { origin, node, tunnels, connect, api: `http://127.0.0.1:${controlPort}/api/v1` };
  },
  async ({ origin, node, tunnels }) => {
    for (const t of tunnels) t.destroy();
    await node.stop();
    await origin.close();
  },
);

async function get(api: string, query: string): Promise<{ status: number; type: string | null; body: unknown }> {
  const res = await fetch(`${api}/flows${query}`, { headers: { authorization: `Bearer ${API_KEY}` } });
  return { status: res.status, type: res.headers.get('content-type'), body: await res.json() };
}

async function page(api: string, query: string): Promise<Page> {
  const res = await get(api, query);
  assert.is(res.status, 200, query);
  const body = res.body as Page;
  assert.equal(Object.keys(body), ['flows', 'next'], query);
  return body;
}

/** Every page from `after`, `limit` at a time, until `next` is null. */
async function allPages(api: string, limit: number, after = 0): Promise<Page[]> {
  const pages: Page[] = [];
  for (let cursor: number | null = after; cursor !== null && pages.length <= TUNNELS + 1; cursor = pages.at(-1)!.next) {
    pages.push(await page(api, `?limit=${limit}${cursor === 0 ? '' : `&after=${cursor}`}`));
  }
  return pages;
}

const ids = (records: readonly FlowRecord[]): string[] => records.map((r) => r.flow_id);

test('pages of 2 list every active flow once, in opening order, and end with next null', async () => {
  const { api } = await setup();
  const whole = await get(api, '');
  assert.equal(Object.keys(whole.body as object), ['flows'], 'without limit and after, the listing is as it always was');
  const all = ids((whole.body as { flows: FlowRecord[] }).flows);
  assert.is(all.length, TUNNELS);

  const pages = await allPages(api, 2);
  assert.equal(
    pages.map((p) => p.flows.length),
    [2, 2, 1],
  );
  assert.equal(ids(pages.flatMap((p) => p.flows)), all, 'each flow once, in opening order');
  assert.is(pages.at(-1)!.next, null);
  assert.ok(pages[0]!.next! < pages[1]!.next!, 'the cursor grows with the opening order');
  assert.ok(
    pages.flatMap((p) => p.flows).every((r) => r.state === 'active'),
    'only active flows',
  );
  // `after` alone pages from there with the default limit; the last page past every flow is empty.
  assert.equal(ids((await page(api, `?after=${pages[0]!.next}`)).flows), all.slice(2));
  assert.equal(await page(api, `?after=${pages[1]!.next! + 1000}`), { flows: [], next: null });
});

test('IPC flows.list takes the same limit and after', async () => {
  const { api, node } = await setup();
  const socket = path.join(node.stateDir, 'weir.sock');
  const all = ids(((await get(api, '')).body as { flows: FlowRecord[] }).flows);
  assert.equal(ids((await ipcCall(socket, { op: 'flows.list' })) as FlowRecord[]), all, 'without them, the array as always');
  const first = (await ipcCall(socket, { op: 'flows.list', limit: 2 })) as Page;
  assert.equal(Object.keys(first), ['flows', 'next']);
  assert.equal(ids(first.flows), all.slice(0, 2));
  const rest = (await ipcCall(socket, { op: 'flows.list', limit: 10, after: first.next })) as Page;
  assert.equal([ids(rest.flows), rest.next], [all.slice(2), null]);
  for (const bad of [{ limit: 0 }, { limit: 1001 }, { limit: '2' }, { after: -1 }, { lmit: 2 }]) {
    const refused = await ipcCall(socket, { op: 'flows.list', ...bad }).catch((err: unknown) => err);
    assert.instance(refused, NodeRefusedError, JSON.stringify(bad));
    assert.is((refused as NodeRefusedError).code, 'INVALID_BODY', JSON.stringify(bad));
  }
});

test('weir flows --limit --after pages the same way, and says where the next page starts', async () => {
  const { api, node } = await setup();
  const all = ids(((await get(api, '')).body as { flows: FlowRecord[] }).flows);
  const json = await runWeir(['flows', '--json', '--limit', '3', '-c', node.configPath]);
  assert.is(json.code, 0, json.stderr);
  const first = JSON.parse(json.stdout) as Page;
  assert.equal(ids(first.flows), all.slice(0, 3));
  const text = await runWeir(['flows', '--limit', '3', '-c', node.configPath]);
  assert.is(text.code, 0, text.stderr);
  assert.ok(text.stdout.endsWith(`more: --after ${first.next}\n`), text.stdout);
  const last = await runWeir(['flows', '--after', String(first.next), '-c', node.configPath]);
  assert.is(last.code, 0, last.stderr);
  assert.equal(
    last.stdout
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((line) => line.split(' ')[0]),
    all.slice(3),
  );
  assert.not.match(last.stdout, /more:/);
});

test('a bad limit or after is a 400 problem', async () => {
  const { api } = await setup();
  const limitDetail = 'limit must be an integer from 1 to 1000';
  const afterDetail = `after must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}`;
  for (const [query, detail] of [
    ['?limit=0', limitDetail],
    ['?limit=1001', limitDetail],
    ['?limit=two', limitDetail],
    ['?limit=2&after=-1', afterDetail],
    ['?after=ep-1', afterDetail],
    ['?limit=1&limit=2', 'limit must be given once'],
  ] as const) {
    const res = await get(api, query);
    assert.equal(
      [res.status, res.type, res.body],
      [400, 'application/problem+json; charset=utf-8', { type: 'urn:weir:problem:bad-request', title: 'Malformed request', status: 400, detail, code: 'BAD_REQUEST' }],
      query,
    );
  }
});

test('a cursor whose flow ended between pages goes on after it, to flows opened since', async () => {
  const { api, tunnels, connect } = await setup();
  const before = ids((await page(api, '?limit=1000')).flows);
  const first = await page(api, '?limit=2');
  // The cursor's own flow ends, and one more opens, before the next page is asked.
  const ended = first.flows[1]!.flow_id;
  tunnels[1]!.destroy();
  await waitFor(async () => (await get(api, `/${ended}`)).status === 404, WAIT_MS, 'the ended flow to leave the table');
  tunnels.push(await connect());
  const after = ids((await page(api, '?limit=1000')).flows);
  assert.equal(after.slice(0, -1), before.filter((id) => id !== ended));
  const rest = await allPages(api, 2, first.next!);
  assert.equal(ids(rest.flatMap((p) => p.flows)), [...before.slice(2), after.at(-1)!]);
  assert.is(rest.at(-1)!.next, null);
});

test.run();
