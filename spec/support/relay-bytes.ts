import * as assert from 'uvu/assert';
import type { FlowRecord } from '../../streams/contract.js';
import type { OriginConnection } from './origin.js';

/**
 * A direct flow's byte counts against the origin's own socket: bytes_down is all the
 * origin sent (status line, headers, body), bytes_up all it received. The outbound
 * side carries exactly those. In a tunnel (SOCKS5, CONNECT) the client side carries
 * them plus the proxy handshake; plain forwarding rewrites the heads, so its client
 * side is not compared.
 */
export function assertDirectBytes(record: FlowRecord, origin: OriginConnection, mode: 'tunnel' | 'forward' = 'tunnel'): void {
  const t = record.traffic;
  assert.is(t.bytes_down, origin.bytesWritten, 'bytes_down = what the origin sent');
  assert.is(t.bytes_up, origin.bytesRead, 'bytes_up = what the origin received');
  assert.is(t.outbound_rx_bytes, t.bytes_down);
  assert.is(t.outbound_tx_bytes, t.bytes_up);
  assert.is(t.packets_up, null);
  assert.is(t.packets_down, null);
  if (mode === 'forward') return;
  assert.ok(t.inbound_tx_bytes >= t.bytes_down, 'the client got at least bytes_down');
  assert.ok(t.inbound_rx_bytes >= t.bytes_up, 'the client sent at least bytes_up');
}
