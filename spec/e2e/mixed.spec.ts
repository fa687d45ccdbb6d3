import { test } from 'uvu';
import { stopAndAudit } from '../support/audit.js';
import { assertDirectDownload } from '../support/direct-download.js';
import { proxyFixture } from '../support/proxy-fixture.js';

const INBOUND = { tag: 'mixed-in', protocol: 'mixed' };

const setup = proxyFixture(test, { inbounds: [{ type: 'mixed', tag: INBOUND.tag }] });

const CASES = [
  { name: 'SOCKS5', args: (proxy: string) => ['--socks5-hostname', proxy], mode: 'tunnel' },
  { name: 'plain HTTP', args: (proxy: string) => ['-x', `http://${proxy}`], mode: 'forward' },
  { name: 'HTTP CONNECT', args: (proxy: string) => ['-p', '-x', `http://${proxy}`], mode: 'tunnel' },
] as const;

for (const c of CASES) {
  test(`serves ${c.name} on the mixed port as a flow of the mixed inbound`, async () => {
    const { origin, events, proxy } = await setup();
    const label = `mixed-${c.name.replace(/ /g, '-')}`;
    await assertDirectDownload(origin, events, { via: c.args(proxy(INBOUND.tag)), inbound: INBOUND, bytes: 1500, label, mode: c.mode });
  });
}

test('writes a sink file of valid envelopes with every flow complete', async () => {
  const { node, events } = await setup();
  await stopAndAudit(node, events);
});

test.run();
