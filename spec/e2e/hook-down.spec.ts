import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { stopAndAudit } from '../support/audit.js';
import { curl } from '../support/curl.js';
import { directRelayed } from '../support/direct-download.js';
import { assertFlow } from '../support/flow-expect.js';
import { knownFlows, nextFlows } from '../support/flow-lifecycle.js';
import { fixture } from '../support/fixture.js';
import { WAIT_MS } from '../support/far-bound.js';
import { ofType, readJsonl, waitForEvents } from '../support/jsonl.js';
import { e2eConfig, eventsPath } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startNode } from '../support/start-node.js';
import { tempDir } from '../support/temp-dir.js';
import { runWeir } from '../support/weir-bin.js';

const SOCKS = { tag: 'socks-in', protocol: 'socks' };

const setup = fixture(
  test,
  async () => {
    const stateDir = tempDir();
    const config = e2eConfig({ stateDir, inbounds: [{ type: 'socks', tag: SOCKS.tag, listen: '127.0.0.1', port: 0 }] });
    // Nothing listens on this socket: the hook process is down.
    config['ipc_hook'] = { path: path.join(stateDir, 'no-hook.sock') };
    const [origin, node] = await Promise.all([startOrigin(), startNode(config)]);
    return { origin, node, events: eventsPath(stateDir), socks: `127.0.0.1:${node.ports[SOCKS.tag]}` };
  },
  async ({ origin, node }) => {
    await node.stop();
    await origin.close();
  },
);

test('allows every flow while the hook is down and warns once', async () => {
  const { origin, events, socks } = await setup();
  const known = knownFlows(events);
  for (let i = 0; i < 3; i++) {
    const res = await curl(['--socks5', socks, origin.url(`/bytes/10?case=hook-down-${i}`)]);
    assert.is(res.code, 0, res.stderr);
  }
  const flows = await nextFlows(events, known, 3);
  for (const flow of flows) {
    assertFlow(flow, directRelayed(SOCKS, origin.port));
  }
  const warnings = ofType(readJsonl(events), 'engine.warning');
  assert.is(warnings.length, 1, 'one warning for the outage, not one per flow');
  assert.equal(Object.keys(warnings[0]!.payload).sort(), ['code', 'message']);
  assert.is(warnings[0]!.payload['code'], 'ipc_hook_unreachable');
  assert.match(String(warnings[0]!.payload['message']), /no-hook\.sock.*flows are allowed/);
});

test('a reload moves the hook for the next flow: the new path is asked, and warned about', async () => {
  const { origin, node, events, socks } = await setup();
  const config = JSON.parse(fs.readFileSync(node.configPath, 'utf8')) as { ipc_hook: { path: string } };
  config.ipc_hook.path = path.join(node.stateDir, 'other-hook.sock');
  fs.writeFileSync(node.configPath, JSON.stringify(config));
  const reload = await runWeir(['reload', '-c', node.configPath]);
  assert.equal([reload.code, reload.stdout], [0, 'configuration reloaded\n']);
  assert.is((await curl(['--socks5', socks, origin.url('/bytes/10?case=hook-moved')])).code, 0);
  const warnings = await waitForEvents(events, (es) => ofType(es, 'engine.warning').length === 2, WAIT_MS, 'a second engine.warning');
  assert.match(String(ofType(warnings, 'engine.warning')[1]!.payload['message']), /other-hook\.sock.*flows are allowed/);
});

test('writes a sink file of valid envelopes with every flow complete', async () => {
  const { node, events } = await setup();
  const all = await stopAndAudit(node, events);
  assert.is(ofType(all, 'engine.warning').length, 2);
});

test.run();
