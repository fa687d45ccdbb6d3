import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { curl } from '../support/curl.js';
import { WAIT_MS } from '../support/far-bound.js';
import { freePort } from '../support/free-port.js';
import { proxyFixture } from '../support/proxy-fixture.js';
import { waitFor } from '../support/wait-for.js';
import { runWeir } from '../support/weir-bin.js';

// What the README promises of `weir principals`, `weir flows completed` and `weir probe`.

const setup = proxyFixture(test, {
  inbounds: [{ type: 'mixed', tag: 'mixed-in' }],
  // Every member of `auto` is unhealthy: block refuses each probe.
  outbounds: [{ type: 'url_test', tag: 'auto', members: ['block'], url: 'http://127.0.0.1:8089/probe', interval_s: 3600, timeout_ms: 2000 }],
});

interface Counters {
  flows_opened: number;
  flows_completed: number;
  flows_failed: number;
}

test('principals shows COMPLETED; flows completed shows the failure code', async () => {
  const { node, origin, proxy } = await setup();
  const weir = (...args: string[]) => runWeir([...args, '-c', node.configPath]);
  const via = ['--socks5-hostname', proxy('mixed-in')];
  assert.is((await curl([...via, origin.url('/bytes/16?case=cli-tables')])).code, 0);
  const closed = await freePort();
  assert.is.not((await curl([...via, `http://127.0.0.1:${closed}/`])).code, 0);
  await waitFor(async () => {
    const view = JSON.parse((await weir('principals', '--json')).stdout) as { principals: { since_reset: Counters }[] };
    return view.principals[0]?.since_reset.flows_completed === 2;
  }, WAIT_MS, 'both flows completed');

  const principals = await weir('principals');
  assert.is(principals.code, 0, principals.stderr);
  assert.match(principals.stdout, /^PRINCIPAL +ACTIVE +OPENED +COMPLETED +FAILED +UP +DOWN /m);
  assert.match(principals.stdout, /^\(none\) +0 +2 +2 +1 /m);

  const completed = await weir('flows', 'completed');
  assert.is(completed.code, 0, completed.stderr);
  assert.match(completed.stdout, /^SEQUENCE +FLOW_ID +PRINCIPAL +OUTCOME +FAILURE +TARGET /m);
  assert.match(completed.stdout, new RegExp(`\\(none\\) +failed +DIAL_REFUSED +127\\.0\\.0\\.1:${closed} `));
  assert.match(completed.stdout, /\(none\) +direct_relayed +- +127\.0\.0\.1:/);
});

test('probe exits 1 when no member is healthy, with the round printed', async () => {
  const { node } = await setup();
  const probe = await runWeir(['probe', 'auto', '-c', node.configPath]);
  assert.equal([probe.code, probe.stderr], [1, 'weir: no member of auto is healthy\n']);
  assert.match(probe.stdout, /^block +no /m);
});

test.run();
