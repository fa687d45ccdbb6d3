import * as assert from 'uvu/assert';
import type { ConnectorState } from '../../actors/contracts/sink.js';
import { authority } from '../../actors/net/authority.js';
import { curl } from './curl.js';
import { WAIT_MS } from './far-bound.js';
import { jsonOrUndefined } from './json-or-undefined.js';
import { logLines } from './log-lines.js';
import { e2eConfig, eventsPath } from './node-config.js';
import type { Origin } from './origin.js';
import { startNode, type WeirNode } from './start-node.js';
import { tempDir } from './temp-dir.js';
import { waitFor } from './wait-for.js';

/** The Webhook token of the specs; it must never show up in an API body or a log. */
export const HOOK_TOKEN = 'whtok-e2e-7f3c9a1d5b2e8f40';
const API_KEY = 'e2e-api-key-not-a-secret';

/** A sink as GET /api/v1/sinks shows it, with the outbox's extra storage fields. */
export type SinkView = ConnectorState & {
  outbox_storage: { write_blocked: boolean; write_blocked_reason?: string | null; store?: string; bytes?: number };
};

export interface HookNodeOptions {
  origin: Origin;
  /** The Webhook sink `hook` (events flow.completed, small backoff) with these fields over the defaults; null: no Webhook sink. */
  hook: Record<string, unknown> | null;
  redisUrl?: string;
  /** The whole `redis` section (a cluster's seeds), instead of redisUrl. */
  redis?: Record<string, unknown>;
  /** node.id; the specs' shared id by default. */
  nodeId?: string;
  outbox?: { max_bytes?: number; min_free_bytes?: number };
  /** node.state_dir (the outbox and the JSONL sink's file are in it); a fresh temp dir by default. */
  stateDir?: string;
  /** Fields of `control` over the listen address and key the node gets. */
  control?: Record<string, unknown>;
  /** Fields of the JSONL sink `archive` (every event, `<stateDir>/events.jsonl`) over its defaults. */
  archive?: Record<string, unknown>;
  /** The `log` section over `{ level: 'info' }` (log lines on stdout). */
  log?: Record<string, unknown>;
}

export interface ApiReply {
  status: number;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- spec-side convenience
  json: any;
}

export interface HookNode {
  /** The running process; replaced by `restart`. */
  node: WeirNode;
  configPath: string;
  /** `http://127.0.0.1:<control port>` of the running process (a restart may change the port). */
  readonly controlUrl: string;
  /** `http://host:port` of `control.metrics_listen`, as the node logs it (`metrics listening`, the bound port for port 0). */
  metricsUrl(): Promise<string>;
  /** The API key, for calls that do not go through `api`. */
  apiKey: string;
  /** The node's JSONL sink of every event type. */
  events: string;
  /** Every API response body read, for the no-secrets check. */
  bodies: string[];
  api(path: string, init?: { method?: string; body?: unknown }): Promise<ApiReply>;
  sink(tag?: string): Promise<SinkView | undefined>;
  /** Polls the sink `tag` (default `hook`) until `ready` holds, and returns that view. */
  sinkWhen(ready: (s: SinkView) => boolean, what: string, opts?: { tag?: string; timeoutMs?: number }): Promise<SinkView>;
  /** One curl through the SOCKS5 inbound to the origin; resolves with curl's local port (the flow's source port). */
  curlFlow(): Promise<number>;
  /** `count` curls, `parallel` at a time; the local ports in completion order. */
  curlFlows(count: number, parallel?: number): Promise<number[]>;
  /** Starts the node again on the same config file and state dir (after a stop or a kill -9); its ports are the kernel's again. */
  restart(): Promise<void>;
}

let curls = 0;

/**
 * A real `weir run` for the Webhook specs: a SOCKS5 inbound, direct outbound, a JSONL
 * sink of every event, and the Webhook sink `hook` of flow.completed with a backoff
 * small enough for a spec. Outbox limits default to "never blocks" (min_free_bytes 0).
 */
export async function startHookNode(opts: HookNodeOptions): Promise<HookNode> {
  const stateDir = opts.stateDir ?? tempDir('weir-webhook-');
  const base = e2eConfig({ stateDir, inbounds: [{ type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port: 0 }] });
  const hook = opts.hook && {
    type: 'webhook',
    tag: 'hook',
    token: HOOK_TOKEN,
    events: ['flow.completed'],
    concurrency: 2,
    timeout_ms: 3000,
    backoff_base_ms: 100,
    backoff_max_ms: 1000,
    ...opts.hook,
  };
  const config = {
    ...base,
    ...(opts.nodeId ? { node: { ...(base['node'] as object), id: opts.nodeId } } : {}),
    control: { listen: '127.0.0.1:0', api_key: API_KEY, ...opts.control },
    log: { ...(base['log'] as object), ...opts.log },
    ...(opts.redisUrl ? { redis: { url: opts.redisUrl } } : {}),
    ...(opts.redis ? { redis: opts.redis } : {}),
    outbox: { min_free_bytes: 0, ...opts.outbox },
    event_sinks: [...(base['event_sinks'] as Record<string, unknown>[]).map((sink) => ({ ...sink, ...opts.archive })), ...(hook ? [hook] : [])],
  };
  const bodies: string[] = [];
  const api: HookNode['api'] = async (path, init = {}) => {
    const res = await fetch(`${hookNode.controlUrl}/api/v1${path}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${API_KEY}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    bodies.push(text);
    return { status: res.status, text, json: jsonOrUndefined(text) };
  };
  const curlFlow = async (): Promise<number> => {
    const target = opts.origin.url(`/bytes/64?n=${++curls}`);
    const res = await curl(['--socks5-hostname', `127.0.0.1:${hookNode.node.ports['socks-in']}`, '-o', '/dev/null', '-w', '%{local_port}', target]);
    assert.is(res.code, 0, `curl through the node: ${res.stderr}`);
    return Number(res.body.toString());
  };
  const first = await startNode(config);
  const hookNode: HookNode = {
    node: first,
    configPath: first.configPath,
    get controlUrl() {
      return hookNode.node.controlUrl();
    },
    metricsUrl() {
      // The log line may reach stdout after the ready line reached stderr.
      const listening = (): Record<string, unknown> | undefined => logLines(hookNode.node.stdout()).find((l) => l['msg'] === 'metrics listening');
      return waitFor(listening, WAIT_MS, 'the metrics listener in the log').then((l) => `http://${authority({ host: String(l['host']), port: Number(l['port']) })}`);
    },
    apiKey: API_KEY,
    events: eventsPath(stateDir),
    bodies,
    api,
    async sink(tag = 'hook') {
      const res = await api('/sinks');
      assert.is(res.status, 200, res.text);
      return (res.json.sinks as SinkView[]).find((s) => s.tag === tag);
    },
    async sinkWhen(ready, what, { tag = 'hook', timeoutMs = 10_000 } = {}) {
      let last: SinkView | undefined;
      try {
        return await waitFor(async () => {
          last = await hookNode.sink(tag);
          return last && ready(last) ? last : undefined;
        }, timeoutMs, what);
      } catch (error) {
        throw new Error(`${(error as Error).message}; the sink last read: ${JSON.stringify(last)}`, { cause: error });
      }
    },
    curlFlow,
    async curlFlows(count, parallel = 4) {
      const ports: number[] = [];
      let next = 0;
      const lane = async (): Promise<void> => {
        while (next < count) {
          next++;
          ports.push(await curlFlow());
        }
      };
      await Promise.all(Array.from({ length: Math.min(parallel, count) }, lane));
      return ports;
    },
    async restart() {
      hookNode.node = await startNode(config);
    },
  };
  return hookNode;
}

/**
 * The end of a Webhook spec, whatever it did: the node is stopped first (so nothing
 * is sent to a receiver that is gone), then each other part in the order given.
 */
export async function stopAll(hn: HookNode, ...parts: { close(): Promise<unknown> }[]): Promise<void> {
  await hn.node.stop();
  for (const part of parts) await part.close();
}
