import * as assert from 'uvu/assert';
import type { FlowAuth, TagProtocol } from '../../streams/contract.js';
import { curl } from './curl.js';
import { DIRECT, FINAL_DIRECT, NO_AUTH, assertFlow, recordOf, type FlowExpectation } from './flow-expect.js';
import { knownFlows, nextFlow, type FlowLifecycle } from './flow-lifecycle.js';
import { closedConnection, type Origin } from './origin.js';
import { assertDirectBytes } from './relay-bytes.js';

/** A connection from `inbound` to the origin on `port`, routed by `final` to `direct` and relayed. */
export function directRelayed(inbound: TagProtocol, port: number, auth: FlowAuth = NO_AUTH): FlowExpectation {
  return { inbound, auth, target: { host: '127.0.0.1', port }, route: FINAL_DIRECT, outbound: DIRECT, outcome: 'direct_relayed' };
}

export interface DirectDownload {
  /** curl's proxy options, e.g. `['--socks5-hostname', proxy('socks-in')]`. */
  via: string[];
  inbound: TagProtocol;
  /** Body length: the origin's `/bytes/<bytes>` is fetched. */
  bytes: number;
  /** Makes the request target unique: `?case=<label>`. */
  label: string;
  auth?: FlowAuth;
  /** 'forward' for plain HTTP proxying, whose client side is not compared. @defaultValue 'tunnel' */
  mode?: 'tunnel' | 'forward';
}

/**
 * Downloads `/bytes/<bytes>` from the origin through the proxy with curl and asserts
 * the whole body, its one direct_relayed flow of every lifecycle field, and the flow's
 * byte counts against the origin's socket. Returns the flow.
 */
export async function assertDirectDownload(origin: Origin, events: string, d: DirectDownload): Promise<FlowLifecycle> {
  const known = knownFlows(events);
  const path = `/bytes/${d.bytes}?case=${d.label}`;
  const res = await curl([...d.via, origin.url(path)]);
  assert.is(res.code, 0, res.stderr);
  assert.is(res.body.length, d.bytes);
  const flow = await nextFlow(events, known);
  assertFlow(flow, directRelayed(d.inbound, origin.port, d.auth));
  assertDirectBytes(recordOf(flow.completed), await closedConnection(origin, path), d.mode);
  return flow;
}
