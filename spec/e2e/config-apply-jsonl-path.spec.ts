import fs from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { WAIT_MS } from '../support/far-bound.js';
import { readJsonl, waitForEvents } from '../support/jsonl.js';
import { RESTARTABLE_API_KEY, restartableConfig } from '../support/restartable-config.js';
import { startNode, type WeirNode } from '../support/start-node.js';
import { waitFor } from '../support/wait-for.js';
import { runWeir } from '../support/weir-bin.js';

// A JSONL sink may not be pointed at a file the node already writes or reads: its
// config file (which would stop parsing, so every later config.apply, the sink's own
// removal included, and the next start were refused), another sink's file (every event
// archived twice) or its state files. `validate`/`run` check the same.

const AUTH = { authorization: `Bearer ${RESTARTABLE_API_KEY}`, 'content-type': 'application/json' };

interface Applied {
  status: number;
  json: { code?: string; detail?: string; details?: { problems?: { path: string }[] } };
}

/** A fresh node per test: one test's sink must not spoil the next one's node. */
async function withNode(body: (n: { node: WeirNode; events: string; apply: (b: object) => Promise<Applied> }) => Promise<void>): Promise<void> {
  const { config, control, events } = await restartableConfig();
  const node = await startNode(config);
  try {
    await waitFor(async () => (await fetch(`${control}/api/v1/health`, { headers: AUTH }).catch(() => null))?.ok, WAIT_MS, 'the control plane');
    const apply = async (b: object): Promise<Applied> => {
      const res = await fetch(`${control}/api/v1/config/apply`, { method: 'POST', headers: AUTH, body: JSON.stringify(b), signal: AbortSignal.timeout(WAIT_MS) });
      return { status: res.status, json: (await res.json()) as Applied['json'] };
    };
    await body({ node, events, apply });
  } finally {
    await node.kill9();
  }
}

test("config.apply refuses a JSONL sink onto the node's own config file, which stays valid JSON", () =>
  withNode(async ({ node, apply, events }) => {
    const before = fs.readFileSync(node.configPath, 'utf8');
    const res = await apply({ upsert_sinks: [{ tag: 'onto-config', type: 'jsonl', path: node.configPath }] });
    // Whatever the answer, let the sink (if any) take a few stats.sampled.
    const seen = readJsonl(events).length;
    await waitForEvents(events, (es) => es.length >= seen + 3, WAIT_MS, 'three more archived events');
    const after = fs.readFileSync(node.configPath, 'utf8');
    const removal = await apply({ remove_sinks: ['onto-config'] });
    assert.is(after, before, `the config file was appended to; removing the sink then answered ${removal.status} ${removal.json.detail}`);
    assert.is(res.status, 422);
    assert.is(res.json.code, 'CONFIG_INVALID');
    assert.equal(res.json.details?.problems?.map((p) => p.path), ['upsert_sinks[0].path']);
  }));

test("config.apply refuses a JSONL sink onto another sink's file: every event would be archived twice", () =>
  withNode(async ({ apply, events }) => {
    const res = await apply({ upsert_sinks: [{ tag: 'second-archive', type: 'jsonl', path: events }] });
    const seen = readJsonl(events).length;
    await waitForEvents(events, (es) => es.length >= seen + 4, WAIT_MS, 'more archived events');
    await apply({ remove_sinks: ['second-archive'] });
    const sequences = readJsonl(events).map((e) => e.sequence);
    const twice = sequences.filter((s, i) => sequences.indexOf(s) !== i);
    assert.equal(twice, [], 'sequences archived twice');
    assert.is(res.status, 422);
    assert.is(res.json.code, 'CONFIG_INVALID');
  }));

test("config.apply refuses a JSONL sink onto the node's state files (sequence.json)", () =>
  withNode(async ({ node, apply }) => {
    const res = await apply({ upsert_sinks: [{ tag: 'onto-state', type: 'jsonl', path: path.join(node.stateDir, 'sequence.json') }] });
    await apply({ remove_sinks: ['onto-state'] });
    assert.is(res.status, 422);
    assert.is(res.json.code, 'CONFIG_INVALID');
  }));

test('validate refuses two JSONL sinks writing the same file, naming the second by its JSON path', async () => {
  const { config } = await restartableConfig();
  const file = path.join(path.dirname(String((config['event_sinks'] as { path: string }[])[0]!.path)), 'twice.json');
  const sinks = config['event_sinks'] as Record<string, unknown>[];
  sinks.push({ ...sinks[0], tag: 'archive-2' });
  fs.writeFileSync(file, JSON.stringify(config));
  const result = await runWeir(['validate', file]);
  assert.is(result.code, 1, result.stdout + result.stderr);
  assert.match(result.stdout + result.stderr, /event_sinks\[1\]\.path/);
});

test.run();
