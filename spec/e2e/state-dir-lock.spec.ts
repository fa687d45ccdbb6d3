import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { curl } from '../support/curl.js';
import { ofType, readJsonl } from '../support/jsonl.js';
import { e2eConfig, eventsPath } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startNode } from '../support/start-node.js';
import { tempDir } from '../support/temp-dir.js';
import { runWeir } from '../support/weir-bin.js';

function socksConfig(stateDir: string): Record<string, unknown> {
  return e2eConfig({ stateDir, inbounds: [{ type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port: 0 }] });
}

test('a second weir run on a running node state_dir is refused before it opens anything of it', async () => {
  const origin = await startOrigin();
  const node = await startNode(socksConfig(tempDir()));
  try {
    // Another config (a port of its own: it could listen) naming the same state_dir.
    const second = path.join(tempDir(), 'second.json');
    fs.writeFileSync(second, JSON.stringify(socksConfig(node.stateDir)));
    const refused = await runWeir(['run', '-c', second]);
    assert.is(refused.code, 1);
    assert.match(refused.stderr, `state_dir ${node.stateDir} is in use by another weir node (pid ${node.pid})`);

    const relayed = await curl(['--socks5-hostname', `127.0.0.1:${node.ports['socks-in']}`, origin.url('/bytes/10')]);
    assert.is(relayed.code, 0, relayed.stderr);
    assert.is(await node.stop(), 0);
    const all = readJsonl(eventsPath(node.stateDir));
    // One run's events: one engine.started, one engine.stopped (reason signal), no second epoch.
    assert.equal([ofType(all, 'engine.started').length, ofType(all, 'engine.stopped').length], [1, 1]);
    assert.is(all.at(-1)!.payload['reason'], 'signal');
    assert.equal(new Set(all.map((e) => e.event_id.slice(0, e.event_id.lastIndexOf('-')))).size, 1);
    assert.not.ok(fs.existsSync(path.join(node.stateDir, 'weir.pid')), 'a stopped node gives its state_dir up');
  } finally {
    await node.stop();
    await origin.close();
  }
});

test('a node killed with SIGKILL leaves a claim that the next start takes over', async () => {
  const config = await socksConfig(tempDir());
  const first = await startNode(config);
  await first.kill9();
  assert.is(fs.readFileSync(path.join(first.stateDir, 'weir.pid'), 'utf8').trim(), String(first.pid));
  const next = await startNode(config);
  try {
    assert.is(fs.readFileSync(path.join(next.stateDir, 'weir.pid'), 'utf8').trim(), String(next.pid));
  } finally {
    assert.is(await next.stop(), 0);
  }
});

test.run();
