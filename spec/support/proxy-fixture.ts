import type { Test } from 'uvu';
import { fixture } from './fixture.js';
import { e2eConfig, eventsPath, type E2eConfigParts } from './node-config.js';
import { startOrigin, type Origin } from './origin.js';
import { startNode, type WeirNode } from './start-node.js';
import { tempDir } from './temp-dir.js';

export interface ProxySetup {
  origin: Origin;
  node: WeirNode;
  /** The node's JSONL sink file. */
  events: string;
  /** `127.0.0.1:<port>` of the inbound with this tag. */
  proxy(tag: string): string;
}

export interface ProxyFixtureOptions extends Omit<E2eConfigParts, 'stateDir' | 'inbounds'> {
  /** Inbounds without `port`; each listens on a port the kernel gives (port 0). */
  inbounds: Record<string, unknown>[];
  env?: Record<string, string>;
}

/**
 * The usual e2e fixture of a spec file: a local origin and one weir node with the
 * given inbounds and a JSONL sink, shared by the file's tests and stopped after them.
 */
export function proxyFixture(suite: Test, opts: ProxyFixtureOptions): () => Promise<ProxySetup> {
  return fixture(
    suite,
    async () => {
      const stateDir = tempDir();
      const inbounds = opts.inbounds.map((inbound) => ({ listen: '127.0.0.1', ...inbound, port: 0 }));
      const origin = await startOrigin();
      const node = await startNode(e2eConfig({ ...opts, stateDir, inbounds }), opts.env ? { env: opts.env } : {}).catch(async (err: unknown) => {
        await origin.close();
        throw err;
      });
      return { origin, node, events: eventsPath(stateDir), proxy: (tag) => `127.0.0.1:${node.ports[tag]}` };
    },
    async ({ origin, node }) => {
      await node.stop();
      await origin.close();
    },
  );
}

