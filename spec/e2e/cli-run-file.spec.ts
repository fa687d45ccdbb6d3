import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { e2eConfig } from '../support/node-config.js';
import { accepts } from '../support/listening.js';
import { startNode } from '../support/start-node.js';
import { tempDir } from '../support/temp-dir.js';
import { WAIT_MS } from '../support/far-bound.js';
import { startRedisServer } from '../support/redis-server.js';
import { waitFor } from '../support/wait-for.js';
import { runWeir } from '../support/weir-bin.js';

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const dir = tempDir('weir-run-file-');

test('weir run FILE runs the file, as weir run -c FILE does', async () => {
  const stateDir = path.join(dir, 'positional');
  const node = await startNode(e2eConfig({ stateDir, inbounds: [{ type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port: 0 }] }), {
    positionalConfig: true,
  });
  const port = node.ports['socks-in'];
  try {
    // The node answers on the file's IPC socket with the file's inbound: the built-in
    // default would listen elsewhere and keep its socket in ./state.
    const status = await runWeir(['status', '--json', '-c', node.configPath]);
    assert.is(status.code, 0, status.stderr);
    const inbounds = (JSON.parse(status.stdout) as { inbounds: { tag: string; listen: { port: number } }[] }).inbounds;
    assert.equal(inbounds.map((i) => [i.tag, i.listen.port]), [['socks-in', port]]);
    await waitFor(() => node.stderr().includes('\n'), WAIT_MS, 'the ready line');
    const ready = new RegExp(`^weir: ready: proxy socks-in 127\\.0\\.0\\.1:${port} \\(socks\\); control http://127\\.0\\.0\\.1:\\d+/api/v1; API key in ${escape(node.configPath)}\n$`);
    assert.match(node.stderr(), ready);
    assert.ok(await accepts(port!), 'the port the ready line names accepts connections');
  } finally {
    assert.is(await node.stop(), 0);
  }
});

test('the ready line names a key file and, on Redis, the dashboard', async () => {
  const redis = await startRedisServer();
  const stateDir = path.join(dir, 'ready');
  fs.mkdirSync(stateDir, { recursive: true });
  fs.writeFileSync(path.join(stateDir, 'key'), 'ready-line-key-not-a-secret\n', { mode: 0o600 });
  const base = e2eConfig({ stateDir, inbounds: [{ type: 'mixed', tag: 'mixed-in', listen: '127.0.0.1', port: 0 }] });
  const config = { ...base, control: { listen: '127.0.0.1:0', api_key: { file: 'key' } }, redis: { url: redis.url } };
  const node = await startNode(config, { positionalConfig: true });
  try {
    await waitFor(() => node.stderr().includes('\n'), WAIT_MS, 'the ready line');
    const [line, ...rest] = node.stderr().split('\n');
    const control = /control (http:\/\/127\.0\.0\.1:\d+)\/api\/v1/.exec(line!)?.[1];
    assert.is(
      line,
      `weir: ready: proxy mixed-in 127.0.0.1:${node.ports['mixed-in']} (mixed); control ${control}/api/v1; API key in ${path.join(stateDir, 'key')}; dashboard ${control}/dashboard`,
    );
    assert.equal(rest, ['']);
    assert.not.ok(node.stderr().includes('ready-line-key-not-a-secret'));
    // The line is read back by startNode too: these hold it to the sockets themselves.
    assert.ok(await accepts(node.ports['mixed-in']!), 'the proxy port the ready line names accepts connections');
    const health = await fetch(`${control}/api/v1/health`, { headers: { authorization: 'Bearer ready-line-key-not-a-secret' } });
    assert.is(health.status, 200, 'the control URL the ready line names answers');
  } finally {
    assert.is(await node.stop(), 0);
    await redis.close();
  }
});

test('weir run with two files refuses with exit 2 and runs nothing', async () => {
  const result = await runWeir(['run', 'a.json', 'b.json']);
  assert.equal([result.code, result.stdout], [2, '']);
  assert.is(result.stderr, 'weir: usage: weir run [FILE | -c FILE] (one config file; got "a.json" "b.json")\n');
});

test('weir run -c FILE with another FILE refuses with exit 2', async () => {
  const result = await runWeir(['run', '-c', 'a.json', 'b.json']);
  assert.equal([result.code, result.stderr], [2, 'weir: usage: weir run [FILE | -c FILE] (one config file; got "a.json" "b.json")\n']);
});

test('weir run with a file that does not exist says so as validate does, and exits 1', async () => {
  const missing = path.join(dir, 'missing.json');
  for (const args of [['run', missing], ['run', '-c', missing]]) {
    const result = await runWeir(args);
    assert.equal([result.code, result.stdout], [1, ''], args.join(' '));
    assert.is(result.stderr, `${missing}: invalid configuration (1 problem)\n  cannot read config file ${missing} (ENOENT)\n`, args.join(' '));
  }
  assert.not.ok(fs.existsSync(missing));
});

test.run();
