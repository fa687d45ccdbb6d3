import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ConnectorState } from '../../../actors/contracts/sink.js';
import {
  ConnectorStateFileError,
  connectorStatePath,
  readConnectorState,
  writeConnectorState,
} from '../../../actors/sinks/connector-state-file.js';

const STATE: ConnectorState = {
  tag: 'archive',
  type: 'jsonl',
  pending: 3,
  total_delivered: 120,
  total_failed: 2,
  replay_gaps: 1,
  last_error: { message: 'disk full', at_unix_ms: 1_700_000_000_000 },
  outbox_storage: { write_blocked: true },
};

async function withDir(run: (dir: string) => Promise<void> | void): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weir-connector-'));
  try {
    await run(dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('reads back what it wrote, in a mode 0600 file, creating the state dir', () =>
  withDir(async (dir) => {
    const stateDir = path.join(dir, 'state');
    await writeConnectorState(stateDir, [STATE, { ...STATE, tag: 'billing', type: 'webhook', last_error: null }]);
    assert.equal(readConnectorState(stateDir), [STATE, { ...STATE, tag: 'billing', type: 'webhook', last_error: null }]);
    assert.equal(fs.statSync(connectorStatePath(stateDir)).mode & 0o777, 0o600);
  }));

test('replaces the previous file and leaves no temporary file behind', () =>
  withDir(async (dir) => {
    await writeConnectorState(dir, [STATE]);
    await writeConnectorState(dir, [{ ...STATE, pending: 0 }]);
    assert.equal(readConnectorState(dir), [{ ...STATE, pending: 0 }]);
    assert.equal(fs.readdirSync(dir), ['connector-state.json']);
  }));

test('returns null when nothing was persisted', () =>
  withDir((dir) => {
    assert.is(readConnectorState(dir), null);
  }));

test('refuses a damaged file with a ConnectorStateFileError', () =>
  withDir((dir) => {
    fs.writeFileSync(connectorStatePath(dir), '{"half":');
    assert.throws(() => readConnectorState(dir), (err: unknown) => err instanceof ConnectorStateFileError && err.code === 'CONNECTOR_STATE_UNREADABLE');
    fs.writeFileSync(connectorStatePath(dir), JSON.stringify([{ tag: 'archive' }]));
    assert.throws(() => readConnectorState(dir), /does not hold connector states/);
  }));

test.run();
