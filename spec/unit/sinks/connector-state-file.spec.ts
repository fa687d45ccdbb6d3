import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { ConnectorState } from '../../../actors/contracts/sink.js';
import {
  ConnectorStateFileError,
  ConnectorStateSaver,
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

test('the saver writes a changed state, leaves the file alone while nothing changes, and retries a failed write', () =>
  withDir(async (dir) => {
    const stateDir = path.join(dir, 'state');
    const file = connectorStatePath(stateDir);
    const saver = new ConnectorStateSaver(stateDir);
    assert.is(await saver.save([STATE]), true);
    fs.rmSync(file);
    // Unchanged: not written again, so the removed file stays away.
    assert.is(await saver.save([{ ...STATE }]), false);
    assert.not.ok(fs.existsSync(file));
    const delivered = { ...STATE, total_delivered: 121 };
    assert.is(await saver.save([delivered]), true);
    assert.equal(readConnectorState(stateDir), [delivered]);
    // A state dir that cannot be created fails the write; the same state is tried again once it can.
    fs.rmSync(stateDir, { recursive: true });
    fs.writeFileSync(stateDir, 'not a directory');
    const failing = { ...STATE, total_delivered: 122 };
    await saver.save([failing]).then(
      () => assert.unreachable('a write into a file path succeeded'),
      () => undefined,
    );
    fs.rmSync(stateDir);
    assert.is(await saver.save([failing]), true);
    assert.equal(readConnectorState(stateDir), [failing]);
  }));

test.run();
