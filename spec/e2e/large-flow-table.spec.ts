import type net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Envelope, FlowRecord, FlowSnapshotPayload } from '../../streams/contract.js';
import { RECORDS_PER_SLICE } from '../../streams/text-slices.js';
import { socksConnect } from '../bench/socks5-client.js';
import { WAIT_MS } from '../support/far-bound.js';
import { fixture } from '../support/fixture.js';
import { e2eConfig } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startNode } from '../support/start-node.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { runWeir } from '../support/weir-bin.js';
import { SseClient } from '../support/event-clients.js';

/** More flows than three slices of a listing: every way of listing them takes several turns. */
const TUNNELS = 3 * RECORDS_PER_SLICE + 10;
const API_KEY = 'e2e-api-key-not-a-secret';

const setup = fixture(
  test,
  async () => {
    const origin = await startOrigin();
    const base = e2eConfig({ stateDir: tempDir(), inbounds: [{ type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port: 0 }] });
    const node = await startNode({ ...base, control: { listen: '127.0.0.1:0', api_key: API_KEY } });
    // Idle tunnels to the origin's HTTP port: it waits for a request that never comes.
    const tunnels: net.Socket[] = [];
    while (tunnels.length < TUNNELS) tunnels.push((await socksConnect(node.ports['socks-in']!, origin.port, WAIT_MS)).socket);
    return { origin, node, tunnels, api: `${node.controlUrl()}/api/v1` };
  },
  async ({ origin, node, tunnels }) => {
    for (const t of tunnels) t.destroy();
    await node.stop();
    await origin.close();
  },
);

function assertTunnels(records: readonly FlowRecord[], originPort: number): void {
  assert.is(records.length, TUNNELS);
  assert.is(new Set(records.map((r) => r.flow_id)).size, TUNNELS, 'each flow once');
  assert.ok(
    records.every((r) => r.state === 'active' && r.target.port === originPort && r.path.outbound?.tag === 'direct'),
    'every record is an active tunnel to the origin',
  );
}

test('GET /api/v1/flows lists every flow of a table larger than a slice, as one JSON body', async () => {
  const { origin, api } = await setup();
  const res = await fetch(`${api}/flows`, { headers: { authorization: `Bearer ${API_KEY}` } });
  assert.is(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  const body = (await res.json()) as { flows: FlowRecord[] };
  assert.equal(Object.keys(body), ['flows']);
  assertTunnels(body.flows, origin.port);
});

test('weir flows --json (IPC flows.list) lists the same flows', async () => {
  const { origin, node } = await setup();
  const listed = await runWeir(['flows', '--json', '-c', node.configPath]);
  assert.is(listed.code, 0, listed.stderr);
  assertTunnels(JSON.parse(listed.stdout) as FlowRecord[], origin.port);
});

test('the SSE flow.snapshot holds every flow, and what ends after it follows its watermark', async () => {
  const { origin, tunnels, api } = await setup();
  const stream = new SseClient(`${api}/events/stream?types=flow.completed`, { key: API_KEY });
  try {
    await waitFor(() => stream.frames.length >= 1, WAIT_MS, 'the snapshot');
    tunnels.pop()!.destroy();
    await waitFor(() => stream.frames.length >= 2, WAIT_MS, 'the closed tunnel');
    const [snapshot, completed] = stream.envelopes as [Envelope<FlowSnapshotPayload>, Envelope<{ flow_id: string }>];
    assert.is(snapshot.event_type, 'flow.snapshot');
    assert.is(snapshot.payload.watermark, snapshot.sequence);
    assertTunnels(snapshot.payload.records, origin.port);
    assert.is(completed.event_type, 'flow.completed');
    assert.ok(completed.sequence > snapshot.payload.watermark);
    assert.ok(snapshot.payload.records.some((r) => r.flow_id === completed.payload.flow_id));
  } finally {
    stream.close();
  }
});

test.run();
