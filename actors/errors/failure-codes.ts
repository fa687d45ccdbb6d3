/**
 * The one registry of `result.failure.code` values. Codes are stable: consumers
 * (billing, alerting) key on them. docs/failure-codes.md lists them; a spec keeps the
 * two in step.
 */
export const FAILURE_CODES = {
  DIAL_REFUSED: { stage: 'connect', meaning: 'The remote (or next hop) refused the TCP connection.' },
  DIAL_TIMEOUT: { stage: 'connect', meaning: 'No TCP connection within flows.connect_timeout_ms.' },
  DIAL_UNREACHABLE: { stage: 'connect', meaning: 'No route to the remote host or network.' },
  DNS_FAILED: { stage: 'resolve', meaning: 'The target host name did not resolve.' },
  DIAL_FAILED: { stage: 'connect', meaning: 'Any other error while opening the outbound connection.' },
  UPSTREAM_RESET: { stage: 'relay', meaning: 'The remote reset or broke the connection during the relay.' },
  ROUTE_FAILED: { stage: 'route', meaning: 'The node could not carry out its routing decision (an internal error, logged as a warning); nothing was dialled.' },
  TARGET_INVALID: { stage: 'connect', meaning: 'The target names no destination that can be dialled (the unspecified address 0.0.0.0 or ::; for UDP also port 0), or one a chain\'s hops cannot be asked for; nothing was dialled.' },
  TARGET_PRIVATE: { stage: 'connect', meaning: 'With route.block_private on, the target is or resolves to an address in the node\'s own networks (private, loopback, link-local, unique-local, CGNAT, unspecified, broadcast, reserved, multicast). The flow ends `blocked`; nothing was dialled.' },
  UDP_UNSUPPORTED: { stage: 'connect', meaning: 'The outbound cannot carry UDP: only direct and a single SOCKS5 hop can.' },
  // Hop codes: the stage is `hop:<tag>` of the hop at fault and `remote` is that hop's server:port.
  HOP_REFUSED: { stage: 'hop', meaning: 'A hop refused the TCP connection (the first hop to weir, a later hop to the hop before it).' },
  HOP_UNREACHABLE: { stage: 'hop', meaning: 'A hop could not be reached: its name did not resolve or there is no route to it.' },
  HOP_AUTH_FAILED: { stage: 'hop', meaning: 'A hop refused the configured credentials, or asks for credentials none are configured for.' },
  HOP_REJECTED: { stage: 'hop', meaning: 'A hop answered the CONNECT or UDP ASSOCIATE with a failure (SOCKS5 reply code, non-2xx HTTP status).' },
  HOP_PROTOCOL_ERROR: { stage: 'hop', meaning: 'A hop answered with something that is not valid SOCKS5 or HTTP.' },
  HOP_CLOSED: { stage: 'hop', meaning: 'A hop closed or reset the connection before its handshake completed.' },
  HOP_TIMEOUT: { stage: 'hop', meaning: 'The chain was not established within flows.connect_timeout_ms.' },
  WORKER_EXITED: { stage: 'worker', meaning: 'The worker process that ran the flow exited (crashed or was killed); the node ended the flow for it (node.workers).' },
} as const satisfies Record<string, { stage: string; meaning: string }>;

export type FailureCode = keyof typeof FAILURE_CODES;
