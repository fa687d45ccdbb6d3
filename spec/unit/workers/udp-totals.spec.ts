import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { zeroUdpStats } from '../../../actors/flows/flow-stats.js';
import { UdpTotals } from '../../../actors/workers/udp-totals.js';

test('sums the live workers\' counters and keeps an exited worker\'s, all but its active associations', () => {
  const node = zeroUdpStats();
  const totals = new UdpTotals(node);
  totals.report(1, { ...zeroUdpStats(), active_associations: 2, created_associations: 5, packets_sent: 10 });
  totals.report(2, { ...zeroUdpStats(), active_associations: 1, created_associations: 1, packets_sent: 4 });
  assert.equal([node.active_associations, node.created_associations, node.packets_sent], [3, 6, 14]);
  totals.exited(1);
  totals.report(2, { ...zeroUdpStats(), active_associations: 1, created_associations: 2, packets_sent: 6 });
  assert.equal([node.active_associations, node.created_associations, node.packets_sent], [1, 7, 16]);
});

test.run();
