// The node of the drain and backlog parts: a real `weir run` with a SOCKS5 inbound and a
// Webhook sink of every flow lifecycle event, read through its control plane.
import fs from 'node:fs';
import path from 'node:path';
import type { ConnectorState } from '../../actors/contracts/sink.js';
import type { StatsSnapshot } from '../../streams/contract.js';
import { readJsonl } from '../support/jsonl.js';
import { startNode, type WeirNode } from '../support/start-node.js';
import { runWeir } from '../support/weir-bin.js';
import type { Target } from './proxy-steps.js';

export const HOOK_SINK = 'hook';
const HOOK_TOKEN = 'bench-hook-token-0123456789';
const API_KEY = 'bench-key-0123456789';
/** What a short connection makes: flow.started, flow.routed and flow.completed (flow.updated only for long flows). */
export const LIFECYCLE_EVENTS = ['flow.started', 'flow.routed', 'flow.updated', 'flow.completed'];

/** Short connections in flight at once: the proxy part's rate load, about the most one node serves. */
export const LOAD_CONCURRENCY = 50;

export interface HookNodeParts {
  readonly nodeId: string;
  readonly stateDir: string;
  /** The Redis store with a URL, the embedded store without. */
  readonly redisUrl: string | null;
  readonly receiverUrl: string;
  readonly delivery: 'node' | 'external';
  /** Also a JSONL sink of the same events: what the node produced, by event_id. */
  readonly archive: boolean;
}

export interface HookNode {
  readonly node: WeirNode;
  readonly socksPort: number;
  readonly configPath: string;
  /** The Webhook sink as GET /api/v1/sinks shows it. */
  sink(): Promise<ConnectorState>;
  /** GET /api/v1/stats. */
  stats(): Promise<StatsSnapshot>;
  /** The JSONL archive's path (with `archive`). */
  readonly archive: string;
}

/** The sink's defaults but for the delivery; `weir deliver` needs the same tag and token. */
function hookSink(receiverUrl: string, delivery: HookNodeParts['delivery']): Record<string, unknown> {
  return {
    type: 'webhook',
    tag: HOOK_SINK,
    url: receiverUrl,
    token: HOOK_TOKEN,
    events: LIFECYCLE_EVENTS,
    ...(delivery === 'external' ? { delivery } : {}),
  };
}

/** node.state_dir and the inbound are the node's; `weir deliver` passes no inbound. */
function baseConfig(nodeId: string, stateDir: string, redisUrl: string | null): Record<string, unknown> {
  return {
    node: { id: nodeId, state_dir: stateDir },
    log: { level: 'warn' },
    control: { listen: '127.0.0.1:0', api_key: API_KEY },
    outbounds: [{ type: 'direct', tag: 'direct' }],
    route: { final: 'direct' },
    ...(redisUrl === null ? {} : { redis: { url: redisUrl } }),
  };
}

export async function startHookNode(p: HookNodeParts): Promise<HookNode> {
  const archive = path.join(p.stateDir, 'lifecycle.jsonl');
  // Large enough never to rotate: the bench reads back one file.
  const archiveSink = { type: 'jsonl', tag: 'archive', path: archive, events: LIFECYCLE_EVENTS, max_bytes: 2 ** 40 };
  const config = {
    ...baseConfig(p.nodeId, p.stateDir, p.redisUrl),
    inbounds: [{ type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port: 0 }],
    event_sinks: [...(p.archive ? [archiveSink] : []), hookSink(p.receiverUrl, p.delivery)],
  };
  const node = await startNode(config);
  const api = async <T>(what: string): Promise<T> => {
    const res = await fetch(`${node.controlUrl()}/api/v1/${what}`, {
      headers: { authorization: `Bearer ${API_KEY}` },
      signal: AbortSignal.timeout(10_000),
    });
    if (res.status !== 200) throw new Error(`GET /api/v1/${what} answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as T;
  };
  const sink = async (): Promise<ConnectorState> => {
    const found = (await api<{ sinks: ConnectorState[] }>('sinks')).sinks.find((s) => s.tag === HOOK_SINK);
    if (!found) throw new Error(`GET /api/v1/sinks shows no sink ${HOOK_SINK}`);
    return found;
  };
  return { node, socksPort: node.ports['socks-in']!, configPath: node.configPath, sink, stats: () => api<StatsSnapshot>('stats'), archive };
}

/**
 * The lifecycle events the node's flows produced so far: flow.started per flow started,
 * flow.routed and flow.completed per flow completed. A flow routed but not yet completed
 * is missed, so the figure is low by at most the active flows.
 */
export function lifecycleEventsOf(stats: StatsSnapshot): number {
  return stats.total_started + 2 * stats.completed_sessions;
}

/** The node as the load steps of proxy-steps.ts reach it: every origin port through its SOCKS5 inbound. */
export function hookTarget(n: HookNode): Target {
  return { proto: 'socks5', ports: { sink: n.socksPort, echo: n.socksPort, echoOnce: n.socksPort }, pids: [n.node.pid] };
}

/** The event_ids in the node's JSONL archive. */
export function archivedIds(node: HookNode): string[] {
  return readJsonl(node.archive).map((e) => e.event_id);
}

/** Writes the config of `weir deliver` workers for the node's sink (same Redis, tag and token) into dir; returns its path. */
export function writeDeliverConfig(dir: string, redisUrl: string, receiverUrl: string): string {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'deliver.json');
  const config = { ...baseConfig('bench-deliver', dir, redisUrl), event_sinks: [hookSink(receiverUrl, 'external')] };
  fs.writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

/** The Webhook sink as `weir connector state --json FILE` shows it. */
export async function connectorState(configPath: string): Promise<ConnectorState> {
  const res = await runWeir(['connector', 'state', '--json', configPath]);
  if (res.code !== 0) throw new Error(`weir connector state exited ${res.code}: ${res.stderr.trim()}`);
  const found = (JSON.parse(res.stdout) as ConnectorState[]).find((s) => s.tag === HOOK_SINK);
  if (!found) throw new Error(`weir connector state shows no sink ${HOOK_SINK}`);
  return found;
}
