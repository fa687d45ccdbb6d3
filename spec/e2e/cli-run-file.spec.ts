import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { freePort } from '../support/free-port.js';
import { e2eConfig } from '../support/node-config.js';
import { startNode } from '../support/start-node.js';
import { tempDir } from '../support/temp-dir.js';
import { runWeir } from '../support/weir-bin.js';

const dir = tempDir('weir-run-file-');

test('weir run FILE runs the file, as weir run -c FILE does', async () => {
  const port = await freePort();
  const stateDir = path.join(dir, 'positional');
  const node = await startNode(e2eConfig({ stateDir, inbounds: [{ type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port }] }), {
    positionalConfig: true,
  });
  try {
    // The node answers on the file's IPC socket with the file's inbound: the built-in
    // default would listen elsewhere and keep its socket in ./state.
    const status = await runWeir(['status', '--json', '-c', node.configPath]);
    assert.is(status.code, 0, status.stderr);
    const inbounds = (JSON.parse(status.stdout) as { inbounds: { tag: string; listen: { port: number } }[] }).inbounds;
    assert.equal(inbounds.map((i) => [i.tag, i.listen.port]), [['socks-in', port]]);
  } finally {
    assert.is(await node.stop(), 0);
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

test('weir run with a file that does not exist says so and exits 1', async () => {
  const missing = path.join(dir, 'missing.json');
  for (const args of [['run', missing], ['run', '-c', missing]]) {
    const result = await runWeir(args);
    assert.equal([result.code, result.stdout], [1, ''], args.join(' '));
    assert.is(result.stderr, `weir: cannot read config file ${missing} (ENOENT)\n`, args.join(' '));
  }
  assert.not.ok(fs.existsSync(missing));
});

test.run();
