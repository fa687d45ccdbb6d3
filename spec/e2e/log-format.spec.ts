import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { curl } from '../support/curl.js';
import { e2eConfig } from '../support/node-config.js';
import { startOrigin } from '../support/origin.js';
import { startNode } from '../support/start-node.js';
import { tempDir } from '../support/temp-dir.js';
import { runWeir } from '../support/weir-bin.js';

test('weir run --log-format pretty writes lines for a person, not JSON', async () => {
  const origin = await startOrigin();
  const node = await startNode(e2eConfig({ stateDir: tempDir('weir-pretty-'), inbounds: [{ type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port: 0 }] }), {
    runArgs: ['--log-format', 'pretty'],
  });
  try {
    const res = await curl(['--socks5-hostname', `127.0.0.1:${node.ports['socks-in']}`, '-o', '/dev/null', origin.url('/bytes/16')]);
    assert.is(res.code, 0, res.stderr);
    assert.is(await node.stop(), 0);
    const lines = node.stdout().trimEnd().split('\n');
    assert.equal(lines.filter((l) => l.startsWith('{')), [], node.stdout());
    assert.ok(lines.every((l) => /^\d\d:\d\d:\d\d\.\d{3} (TRACE|DEBUG|INFO |WARN |ERROR|FATAL) /.test(l)), node.stdout());
    assert.ok(lines.some((l) => /^\S+ INFO  engine started inbounds=\[\{"tag":"socks-in"/.test(l)), node.stdout());
    assert.is(lines.filter((l) => / INFO  socks-in 127\.0\.0\.1:\d+ -> 127\.0\.0\.1:\d+ via direct: direct_relayed, up \d+ B, down \d+ B, \d+ ms$/.test(l)).length, 1, node.stdout());
  } finally {
    await node.stop();
    await origin.close();
  }
});

test('an unknown --log-format is a usage error before anything starts', async () => {
  const res = await runWeir(['run', '--log-format', 'xml']);
  assert.is(res.code, 2);
  assert.match(res.stderr, /^weir: --log-format must be json or pretty \(got "xml"\)\n$/);
});

test.run();
