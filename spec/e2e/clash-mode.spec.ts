import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliFixture } from '../support/cli-fixture.js';
import { curl } from '../support/curl.js';
import { WAIT_MS } from '../support/far-bound.js';
import { E2E_API_KEY } from '../support/node-config.js';
import { waitFor } from '../support/wait-for.js';

// The mode switch and GLOBAL as a dashboard drives them, with curl against the Clash
// routes of a fresh node (mode rule, final direct), and curl through its proxy.

const setup = cliFixture(test);

/** One Clash API call with curl: the status and the parsed body (null when empty). */
async function clash(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const args = ['-s', '-X', method, '-H', `Authorization: Bearer ${E2E_API_KEY}`, '-w', '\n%{http_code}', `${base}${path}`];
  if (body !== undefined) args.push('-H', 'Content-Type: application/json', '--data', JSON.stringify(body));
  const res = await curl(args);
  assert.is(res.code, 0, res.stderr);
  const text = res.body.toString();
  const cut = text.lastIndexOf('\n');
  const payload = text.slice(0, cut);
  return { status: Number(text.slice(cut + 1)), json: payload === '' ? null : JSON.parse(payload) };
}

const modeOf = async (base: string): Promise<unknown> => ((await clash(base, 'GET', '/configs')).json as { mode: string }).mode;

test('PATCH /configs global stays global; a GLOBAL pick in global mode applies to the next flow', async () => {
  const { node, origin, via, weir } = await setup();
  const base = node.controlUrl();
  assert.is(await modeOf(base), 'rule');
  assert.is((await clash(base, 'PATCH', '/configs', { mode: 'global' })).status, 204);
  assert.is(await modeOf(base), 'global');

  assert.is((await clash(base, 'PUT', '/proxies/GLOBAL', { name: 'block' })).status, 204);
  assert.is(await modeOf(base), 'global');
  assert.is(((await clash(base, 'GET', '/proxies/GLOBAL')).json as { now: string }).now, 'block');
  const cli = await weir('mode', '--json');
  assert.equal(JSON.parse(cli.stdout), { mode: 'global', global_target: 'block' });

  const blocked = await curl([...via, '--max-time', '10', origin.url('/bytes/8?case=clash-global-block')]);
  assert.is.not(blocked.code, 0, 'curl through a node in global mode on block got through');
  // The node's only flow: its flow.completed may come a moment after curl's end.
  const last = await waitFor(async () => {
    const page = JSON.parse((await weir('flows', 'completed', '--json', '--limit', '1')).stdout) as { flows: { record: { result: { outcome: string } | null; route: { mode: string } } }[] };
    return page.flows[0]?.record;
  }, WAIT_MS, 'the blocked flow completed');
  assert.equal([last.route.mode, last.result?.outcome], ['global', 'blocked']);

  assert.is((await clash(base, 'PATCH', '/configs', { mode: 'Direct' })).status, 204);
  assert.is(await modeOf(base), 'direct');
  assert.is((await clash(base, 'PATCH', '/configs', { mode: 'rule' })).status, 204);
  assert.is(await modeOf(base), 'rule');
  assert.equal(JSON.parse((await weir('mode', '--json')).stdout), { mode: 'rule', global_target: null });
});

test.run();
