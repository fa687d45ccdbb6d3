import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cliFixture } from '../support/cli-fixture.js';
import { WAIT_MS } from '../support/far-bound.js';
import { logLines } from '../support/log-lines.js';
import { tempDir } from '../support/temp-dir.js';
import { waitFor } from '../support/wait-for.js';
import { runWeir } from '../support/weir-bin.js';

// What the node's log says at a start, a reload and a port in use.

const setup = cliFixture(test);

test('"control plane listening" is logged once', async () => {
  const { node } = await setup();
  await waitFor(() => logLines(node.stdout()).some((l) => l['msg'] === 'control plane listening'), WAIT_MS, 'the control plane line');
  assert.is(logLines(node.stdout()).filter((l) => l['msg'] === 'control plane listening').length, 1, node.stdout());
});

test('weir reload logs the sections it changed', async () => {
  const { node, weir } = await setup();
  const config = JSON.parse(fs.readFileSync(node.configPath, 'utf8')) as { route: Record<string, unknown>; log: Record<string, unknown> };
  config.route = { ...config.route, rules: [{ domain_suffix: ['reload-log.test'], outbound: 'block' }] };
  config.log = { ...config.log, level: 'debug' };
  fs.writeFileSync(node.configPath, JSON.stringify(config));
  const reload = await weir('reload');
  assert.equal([reload.code, reload.stdout], [0, 'configuration reloaded\n'], reload.stderr);
  const line = await waitFor(() => logLines(node.stdout()).find((l) => String(l['msg']).startsWith('configuration reloaded')), WAIT_MS, 'the reload line');
  assert.equal([line['msg'], line['changed']], ['configuration reloaded: route, log.level changed', ['route', 'log.level']]);
});

test('a port in use names the listener and its address', async () => {
  const taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const { port } = taken.address() as net.AddressInfo;
  const config = path.join(tempDir('weir-eaddrinuse-'), 'weir.json');
  fs.writeFileSync(
    config,
    JSON.stringify({
      control: { listen: '127.0.0.1:0', api_key: 'eaddrinuse-api-key-0123' },
      inbounds: [{ type: 'mixed', tag: 'mixed-in', listen: '127.0.0.1', port }],
      outbounds: [{ type: 'direct', tag: 'direct' }],
    }),
  );
  try {
    const run = await runWeir(['run', '-c', config, '--log-format', 'json']);
    assert.is(run.code, 1, run.stderr);
    assert.match(run.stderr, `weir: cannot start: inbound "mixed-in" cannot listen on 127.0.0.1:${port}: EADDRINUSE, the address is in use`);
  } finally {
    taken.close();
  }
});

test.run();
