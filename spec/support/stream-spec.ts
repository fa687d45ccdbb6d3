import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import { startNode, type TestNode } from './api-node.js';

/**
 * The node of an SSE or WebSocket spec file, with 100 ms heartbeats, started before
 * its tests and stopped after them; the stream clients a test opens are closed after it.
 */
export class StreamSpec {
  #node: TestNode | undefined;
  private readonly open: { close(): void }[] = [];
  private onBlock = false;

  constructor(suite: Test) {
    suite.before(async () => {
      this.#node = await startNode({ streamLimits: { heartbeatMs: 100 } });
    });
    suite.after.each(() => {
      for (const client of this.open.splice(0)) client.close();
    });
    suite.after(async () => {
      await this.#node?.stop();
    });
  }

  get node(): TestNode {
    if (!this.#node) throw new Error('the stream spec node has not started');
    return this.#node;
  }

  /** Closes `client` after the current test. */
  track<T extends { close(): void }>(client: T): T {
    this.open.push(client);
    return client;
  }

  /** Emits one policy.selected through the API: the selector `proxy` switches between direct and block. */
  async selectEvent(): Promise<void> {
    this.onBlock = !this.onBlock;
    const member = this.onBlock ? 'block' : 'direct';
    const res = await this.node.api('/api/v1/policies/proxy/select', { method: 'POST', body: { member } });
    assert.is(res.status, 200);
  }
}

/** The sequences run on from `from` without gap or duplicate. */
export function assertContiguous(seqs: number[], from: number): void {
  assert.equal(seqs, seqs.map((_, i) => from + i), `sequences ${seqs.join(',')} run on from ${from}`);
}
