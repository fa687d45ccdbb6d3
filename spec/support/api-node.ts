import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ConfigSource } from '../../actors/config/config-source.js';
import { ControlOps } from '../../actors/control/control-ops.js';
import { buildInfo } from '../../actors/engine/build-info.js';
import { Engine } from '../../actors/engine/engine.js';
import { createLogger } from '../../actors/engine/logger.js';
import type { ScopedRoute } from '../../http/auth/route-table.js';
import { startHttpControl, type HttpControlOptions } from '../../http/control-server.js';
import { WAIT_MS } from './far-bound.js';
import { jsonOrUndefined } from './json-or-undefined.js';
import { tempDir } from './temp-dir.js';
import { waitFor } from './wait-for.js';

/**
 * A whole node for the HTTP specs, built from a config literal: engine, control
 * operations and the HTTP control plane, on loopback port 0. It runs in the spec's
 * process so a spec can reach into the engine (publish events in bulk, read its log);
 * the CLI specs drive a real `weir run` instead (support-cli.ts).
 */
export interface TestNode {
  baseUrl: string;
  wsUrl: string;
  apiKey: string;
  /** The SOCKS5 inbound's user, for curl. */
  proxyUrl: string;
  /** Secret values of the config: none may appear in a response body or a log line. */
  secrets: string[];
  /** Only in-process: lets a spec publish events in bulk. */
  engine: Engine;
  /** The keys of `NodeOptions.scopedKeys` by scope: a read key, an operate key and an admin key (not api_key). */
  keys: { read: string; operate: string; admin: string };
  /** Every route of the control listener with its scope (HttpControl.routes). */
  routes(): ScopedRoute[];
  /** Every response body read through `api`. */
  bodies: string[];
  api(urlPath: string, init?: ApiInit): Promise<ApiResponse>;
  logText(): Promise<string>;
  stop(): Promise<void>;
}

export interface ApiInit {
  method?: string;
  /** A JSON value, or a string sent as it is. */
  body?: unknown;
  /** null sends no Authorization header; a string sends that key instead of the right one. */
  key?: string | null;
  headers?: Record<string, string>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The body as parsed JSON (undefined when it is not JSON); specs assert on it field by field. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- spec-side convenience, never in http/
  json: any;
}

export interface NodeOptions {
  healthRequiresKey?: boolean;
  maxBodyBytes?: number;
  streamLimits?: HttpControlOptions['streamLimits'];
  authThrottle?: HttpControlOptions['authThrottle'];
  /** Probe URL of the url_test group `auto` (member `direct`). */
  probeUrl?: string;
}

export async function startNode(opts: NodeOptions = {}): Promise<TestNode> {
  // Removed at exit, not by stop(): the logger may still be opening its file in it.
  const dir = tempDir('weir-http-');
  const apiKey = `key-${randomBytes(18).toString('hex')}`;
  const keys = { read: `read-${randomBytes(12).toString('hex')}`, operate: `operate-${randomBytes(12).toString('hex')}`, admin: `admin-${randomBytes(12).toString('hex')}` };
  const password = `pw-${randomBytes(12).toString('hex')}`;
  const source = new ConfigSource(null, dir, {
    node: { id: 'http-spec', state_dir: dir },
    log: { level: 'debug', file: path.join(dir, 'weir.log') },
    control: {
      listen: '127.0.0.1:0',
      api_key: apiKey,
      keys: (['read', 'operate', 'admin'] as const).map((scope) => ({ id: `${scope}-key`, key: keys[scope], scope })),
      health_requires_key: opts.healthRequiresKey ?? true,
      max_body_bytes: opts.maxBodyBytes ?? 4096,
    },
    inbounds: [{ type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port: 0, users: [{ username: 'alice', password }] }],
    outbounds: [
      { type: 'direct', tag: 'direct' },
      { type: 'block', tag: 'block' },
      { type: 'url_test', tag: 'auto', members: ['direct'], url: opts.probeUrl ?? 'http://127.0.0.1:9/generate_204' },
      { type: 'selector', tag: 'proxy', members: ['direct', 'block', 'auto'], default: 'direct' },
    ],
    route: { mode: 'rule', rules: [], final: 'proxy' },
  });
  const parsed = source.load();
  if (!parsed.ok) throw new Error(`spec config is invalid: ${JSON.stringify(parsed.problems)}`);
  const config = parsed.config;
  const { log, log_files, tap } = createLogger({ level: config.log.level, file: config.log.file });
  const engine = new Engine({ config, log, build: buildInfo() });
  await engine.start();
  const ops = new ControlOps(engine, {
    build: buildInfo(),
    configPath: null,
    configSource: source,
    logFiles: log_files,
    getLogLevel: () => log.level,
    log,
    setLogLevel: (level) => {
      log.level = level;
    },
  });
  const http = await startHttpControl(ops, {
    listen: { host: '127.0.0.1', port: 0 },
    apiKey: config.control.api_key,
    keys: config.control.keys,
    ...(opts.authThrottle ? { authThrottle: opts.authThrottle } : {}),
    healthRequiresKey: config.control.health_requires_key,
    maxBodyBytes: config.control.max_body_bytes,
    logLines$: tap.lines$,
    log,
    ...(opts.streamLimits ? { streamLimits: opts.streamLimits } : {}),
  });
  const { port } = http.address();
  const socks = engine.inbounds[0]!.address()!;
  const bodies: string[] = [];
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    baseUrl,
    wsUrl: `ws://127.0.0.1:${port}`,
    apiKey,
    proxyUrl: `socks5h://alice:${password}@127.0.0.1:${socks.port}`,
    secrets: [apiKey, password, ...Object.values(keys)],
    engine,
    keys,
    routes: () => http.routes(),
    bodies,
    async api(urlPath, init = {}) {
      const headers: Record<string, string> = { ...init.headers };
      const key = init.key === undefined ? apiKey : init.key;
      if (key !== null) headers['authorization'] = `Bearer ${key}`;
      let body: string | undefined;
      if (init.body !== undefined) {
        body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
        headers['content-type'] ??= 'application/json';
      }
      const res = await fetch(`${baseUrl}${urlPath}`, { method: init.method ?? 'GET', headers, body });
      const text = await res.text();
      bodies.push(text);
      return { status: res.status, headers: res.headers, text, json: jsonOrUndefined(text) };
    },
    async logText() {
      // The logger opens its file in the background, and a flush before that writes nothing.
      await waitFor(() => fs.existsSync(config.log.file!), WAIT_MS, 'the log file');
      await new Promise<void>((resolve) => log.flush(() => resolve()));
      return fs.readFileSync(config.log.file!, 'utf8');
    },
    async stop() {
      await http.close();
      await engine.stop('signal');
      await new Promise<void>((resolve) => log.flush(() => resolve()));
    },
  };
}
