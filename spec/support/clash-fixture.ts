import type { Test } from 'uvu';
import { curl } from './curl.js';
import { WAIT_MS } from './far-bound.js';
import { fixture } from './fixture.js';
import { jsonOrUndefined } from './json-or-undefined.js';
import { e2eConfig, eventsPath } from './node-config.js';
import { startOrigin, type Origin } from './origin.js';
import { startNode, type WeirNode } from './start-node.js';
import { tempDir } from './temp-dir.js';
import { waitFor } from './wait-for.js';
import { WsClient } from './event-clients.js';

export const CLASH_KEY = 'clash-spec-api-key-not-a-secret';

export interface ClashSetup {
  origin: Origin;
  node: WeirNode;
  /** The node's JSONL sink file. */
  events: string;
  /** `http://127.0.0.1:<control port>`: the Clash API's base URL, as a dashboard is given it. */
  base: string;
  controlPort: number;
  /** curl's options for the mixed inbound's SOCKS5 side. */
  via: string[];
  /** Calls the API with the key as a Bearer header (`key: null`: none). */
  call(path: string, init?: ClashInit): Promise<ClashResponse>;
  /** A WebSocket client of a Clash stream, the key as `?token=`. */
  ws(path: string): WsClient;
  /**
   * Starts a download through the node that stays open (origin `/trickle`), to
   * `http://localhost:<origin>` so the target is a host name; `stop` hangs it up.
   */
  liveDownload(label: string): { stop(): void; done: Promise<unknown> };
}

export interface ClashInit {
  method?: string;
  body?: string;
  key?: string | null;
  headers?: Record<string, string>;
}

export interface ClashResponse {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- spec-side convenience: assertions check each field
  json: any;
}

/**
 * A real `weir run` for the Clash specs: a mixed inbound; outbounds `direct`, `block`,
 * the selector `proxy` of both (on `direct`) and the url_test group `auto` of `direct`
 * probing the local origin; rule `domain_suffix=blocked.test` to `block`, final `proxy`.
 */
export function clashFixture(suite: Test): () => Promise<ClashSetup> {
  return fixture(
    suite,
    async () => {
      const stateDir = tempDir();
      const origin = await startOrigin();
      const config = e2eConfig({
        stateDir,
        inbounds: [{ type: 'mixed', tag: 'mixed-in', listen: '127.0.0.1', port: 0 }],
        outbounds: [
          { type: 'selector', tag: 'proxy', members: ['direct', 'block'], default: 'direct' },
          { type: 'url_test', tag: 'auto', members: ['direct'], url: origin.url('/bytes/0') },
        ],
        rules: [{ domain_suffix: ['blocked.test'], outbound: 'block' }],
        route: { final: 'proxy' },
      });
      config['control'] = { listen: '127.0.0.1:0', api_key: CLASH_KEY };
      const node = await startNode(config).catch(async (err: unknown) => {
        await origin.close();
        throw err;
      });
      const base = node.controlUrl();
      const controlPort = Number(new URL(base).port);
      const via = ['--socks5-hostname', `127.0.0.1:${node.ports['mixed-in']}`];
      const setup: ClashSetup = {
        origin,
        node,
        events: eventsPath(stateDir),
        base,
        controlPort,
        via,
        async call(path, init = {}) {
          const headers: Record<string, string> = { ...init.headers };
          const key = init.key === undefined ? CLASH_KEY : init.key;
          if (key !== null) headers['authorization'] = `Bearer ${key}`;
          const res = await fetch(`${base}${path}`, { method: init.method ?? 'GET', headers, body: init.body });
          const text = await res.text();
          return { status: res.status, headers: res.headers, text, json: jsonOrUndefined(text) };
        },
        ws: (path) => new WsClient(`ws://127.0.0.1:${controlPort}${path}${path.includes('?') ? '&' : '?'}token=${CLASH_KEY}`),
        liveDownload(label) {
          const hangUp = new AbortController();
          // 600 chunks of 1 KiB, one each 100 ms: a minute at most, far longer than a test.
          const url = `http://localhost:${origin.port}/trickle?chunks=600&size=1024&every_ms=100&case=${label}`;
          const done = curl([...via, url], 90_000, hangUp.signal);
          return { stop: () => hangUp.abort(), done };
        },
      };
      // startNode waits for the inbounds; the control plane starts listening after them.
      await waitFor(() => setup.call('/version').then((r) => r.status === 200, () => false), WAIT_MS, 'the control plane');
      return setup;
    },
    async ({ origin, node }) => {
      await node.stop();
      await origin.close();
    },
  );
}
