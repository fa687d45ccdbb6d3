import fs from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { e2eConfig } from '../support/node-config.js';
import { startNode, type WeirNode } from '../support/start-node.js';
import { tempDir } from '../support/temp-dir.js';

/** What `bin/weir run` left in the running node: its executable and its environment. */
async function launched(env: Record<string, string> = {}): Promise<{ exe: string; environ: Map<string, string> }> {
  const stateDir = tempDir();
  const config = e2eConfig({ stateDir, inbounds: [{ type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port: 0 }] });
  const node: WeirNode = await startNode(config, { env });
  try {
    const exe = fs.readlinkSync(`/proc/${node.pid}/exe`);
    const environ = new Map(
      fs
        .readFileSync(`/proc/${node.pid}/environ`, 'utf8')
        .split('\0')
        .filter(Boolean)
        .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)] as [string, string]),
    );
    return { exe, environ };
  } finally {
    assert.is(await node.stop(), 0, node.stderr());
  }
}

test('bin/weir execs the node in its own process with the malloc settings of docs/benchmarks.md', async () => {
  const { exe, environ } = await launched({ MALLOC_TRIM_THRESHOLD_: '', MALLOC_MMAP_THRESHOLD_: '' });
  // The shell is gone: the pid the caller holds (and signals) is node's.
  assert.is(exe, fs.realpathSync(process.execPath));
  assert.is(environ.get('MALLOC_TRIM_THRESHOLD_'), '33554432');
  assert.is(environ.get('MALLOC_MMAP_THRESHOLD_'), '1048576');
});

test('a malloc setting from the environment wins over bin/weir’s', async () => {
  const { environ } = await launched({ MALLOC_TRIM_THRESHOLD_: '131072', MALLOC_MMAP_THRESHOLD_: '262144' });
  assert.is(environ.get('MALLOC_TRIM_THRESHOLD_'), '131072');
  assert.is(environ.get('MALLOC_MMAP_THRESHOLD_'), '262144');
});

test.run();
