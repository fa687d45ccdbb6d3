import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ipcCall, NodeRefusedError } from '../../cli/ipc-client.js';
import { curl } from '../support/curl.js';
import { WAIT_MS } from '../support/far-bound.js';
import { ofType, waitForEvents, type JsonEnvelope } from '../support/jsonl.js';
import { startOrigin } from '../support/origin.js';
import { e2eConfig, eventsPath } from '../support/node-config.js';
import { startNode } from '../support/start-node.js';
import { tempDir } from '../support/temp-dir.js';
import { runWeir } from '../support/weir-bin.js';
import { getJson } from '../support/control-json.js';
import { ALICE, BOB, usersInbound } from '../support/principal-users.js';

const HISTORY_SIZE = 6;

interface Kept {
  sequence: number;
  principal_key: string | null;
  record: Record<string, any>;
}

/** A flow.completed envelope as the history keeps it. */
function kept(e: JsonEnvelope): Kept {
  return { sequence: e.sequence, principal_key: e.principal_key, record: e.payload['record'] as Record<string, any> };
}

test('pages through the recent completed flows newest first, bounded, with filters and both cursors', async () => {
  const stateDir = tempDir();
  const config = e2eConfig({
    stateDir,
    inbounds: [{ listen: '127.0.0.1', ...usersInbound(), port: 0 }],
    rules: [{ domain_suffix: ['blocked.example'], outbound: 'block' }],
    flows: { history_size: HISTORY_SIZE },
  });
  const origin = await startOrigin();
  const node = await startNode(config);
  const control = node.controlUrl();
  try {
    const via = (user: string): string[] => ['--socks5-hostname', `127.0.0.1:${node.ports['socks-users']}`, '--proxy-user', user];
    // One after the other, so the order of completion is the order here.
    const plan: [string, string][] = [
      [ALICE, origin.url('/bytes/100')],
      [BOB, origin.url('/bytes/200')],
      [ALICE, origin.url('/bytes/300')],
      [ALICE, 'http://blocked.example/'],
      [BOB, origin.url('/bytes/500')],
      [ALICE, origin.url('/bytes/600')],
      [BOB, origin.url('/bytes/700')],
      [ALICE, origin.url('/bytes/800')],
    ];
    for (const [user, url] of plan) {
      const res = await curl([...via(user), url]);
      if (!url.includes('blocked')) assert.is(res.code, 0, res.stderr);
    }
    const events = await waitForEvents(eventsPath(stateDir), (es) => ofType(es, 'flow.completed').length === plan.length, WAIT_MS, 'every flow.completed');
    const newestFirst = ofType(events, 'flow.completed').map(kept).reverse();
    const held = newestFirst.slice(0, HISTORY_SIZE);

    const all = await getJson(`${control}/api/v1/flows?state=completed`);
    assert.is(all.status, 200);
    assert.equal(all.body, { flows: held, next_before: null, history_size: HISTORY_SIZE }, 'the newest six, as flow.completed carried them');

    const first = await getJson(`${control}/api/v1/flows?state=completed&limit=4`);
    assert.equal(first.body.flows, held.slice(0, 4));
    assert.is(first.body.next_before, held[3]!.sequence);
    const second = await getJson(`${control}/api/v1/flows?state=completed&limit=4&before=${first.body.next_before}`);
    assert.equal(second.body, { flows: held.slice(4), next_before: null, history_size: HISTORY_SIZE });
    const byId = await getJson(`${control}/api/v1/flows?state=completed&limit=4&before=${held[3]!.record['flow_id']}`);
    assert.equal(byId.body, second.body, 'a flow id pages on as its sequence does');

    const bob = await getJson(`${control}/api/v1/flows?state=completed&principal=team-b`);
    assert.equal(bob.body.flows, held.filter((f) => f.principal_key === 'team-b'));
    assert.is(bob.body.flows.length, 2, 'the first bob flow has left the history');
    const blocked = await getJson(`${control}/api/v1/flows?state=completed&outcome=blocked`);
    assert.equal(blocked.body.flows.map((f: Kept) => [f.principal_key, f.record['target'].host, f.record['route'].target, f.record['path'].outbound]), [
      ['alice', 'blocked.example', 'block', null],
    ]);
    const viaBlock = await getJson(`${control}/api/v1/flows?state=completed&outbound=block&principal=alice`);
    assert.equal(viaBlock.body.flows, blocked.body.flows);
    const since = held[2]!.record['timing'].ended_at_unix_ms as number;
    const until = held[0]!.record['timing'].ended_at_unix_ms as number;
    const window = await getJson(`${control}/api/v1/flows?state=completed&since_unix_ms=${since}&until_unix_ms=${until}`);
    assert.equal(window.body.flows, held.filter((f) => f.record['timing'].ended_at_unix_ms >= since && f.record['timing'].ended_at_unix_ms < until));
    assert.ok(window.body.flows.length >= 1);

    const cli = await runWeir(['flows', 'completed', '--json', '--principal', 'team-b', '--limit', '1', '-c', node.configPath]);
    assert.is(cli.code, 0, cli.stderr);
    assert.equal(JSON.parse(cli.stdout), { flows: bob.body.flows.slice(0, 1), next_before: bob.body.flows[0].sequence, history_size: HISTORY_SIZE });

    // Over IPC a misspelt filter is refused, not taken as absent.
    const misspelt = await ipcCall(path.join(node.stateDir, 'weir.sock'), { op: 'flows.completed', outcom: 'blocked' }).catch((err: unknown) => err);
    assert.instance(misspelt, NodeRefusedError);
    assert.is((misspelt as NodeRefusedError).code, 'INVALID_BODY');

    const active = await getJson(`${control}/api/v1/flows?state=active`);
    assert.equal(active.body, { flows: [] });
    for (const [query, status, code] of [
      ['state=closed', 400, 'BAD_REQUEST'],
      ['state=completed&outcome=won', 400, 'BAD_REQUEST'],
      ['state=completed&limit=0', 400, 'BAD_REQUEST'],
      ['state=completed&before=no-such-flow', 404, 'NOT_FOUND'],
    ] as const) {
      const res = await getJson(`${control}/api/v1/flows?${query}`);
      assert.equal([res.status, res.body.code], [status, code], query);
    }
  } finally {
    assert.is(await node.stop(), 0);
    await origin.close();
  }
});

test.run();
