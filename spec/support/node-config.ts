import path from 'node:path';

export const E2E_NODE_ID = 'e2e-node';
/** control.api_key of an e2eConfig. */
export const E2E_API_KEY = 'e2e-api-key-not-a-secret';

export interface E2eConfigParts {
  stateDir: string;
  inbounds: Record<string, unknown>[];
  /** Routing rules; the final outbound is `direct` unless `route` says otherwise. @defaultValue [] */
  rules?: Record<string, unknown>[];
  /** Outbounds beside `direct` and `block`, e.g. a selector of both. @defaultValue [] */
  outbounds?: Record<string, unknown>[];
  /** The `flows` section (idle_timeout_s, connect_timeout_ms, handshake_timeout_ms). */
  flows?: Record<string, unknown>;
  /** More `route` fields (e.g. process_lookup). */
  route?: Record<string, unknown>;
  /** The `dns` section (hosts, servers). */
  dns?: Record<string, unknown>;
}

/** Where the JSONL sink of an e2eConfig writes: `<stateDir>/events.jsonl`. */
export function eventsPath(stateDir: string): string {
  return path.join(stateDir, 'events.jsonl');
}

/**
 * A config literal for one e2e node: the given inbounds, `direct` and `block`
 * outbounds (and any others given), rule routing, and a JSONL sink of every event type.
 */
export function e2eConfig(parts: E2eConfigParts): Record<string, unknown> {
  return {
    node: { id: E2E_NODE_ID, state_dir: parts.stateDir },
    log: { level: 'info' },
    control: { listen: '127.0.0.1:0', api_key: E2E_API_KEY },
    ...(parts.flows ? { flows: parts.flows } : {}),
    inbounds: parts.inbounds,
    outbounds: [{ type: 'direct', tag: 'direct' }, { type: 'block', tag: 'block' }, ...(parts.outbounds ?? [])],
    route: { mode: 'rule', rules: parts.rules ?? [], final: 'direct', ...parts.route },
    ...(parts.dns ? { dns: parts.dns } : {}),
    event_sinks: [{ type: 'jsonl', tag: 'archive', path: eventsPath(parts.stateDir) }],
  };
}
