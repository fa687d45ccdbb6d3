import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { ConnectorState } from '../contracts/sink.js';
import { writeFileAtomic } from '../files/atomic-json.js';
import { WeirError } from '../errors/weir-error.js';

/** The last known state of every sink, kept so `weir connector state` works offline. */
const CONNECTOR_STATE_FILE = 'connector-state.json';

const connectorStateSchema = z.object({
  tag: z.string(),
  type: z.string(),
  pending: z.number().int().min(0),
  total_delivered: z.number().int().min(0),
  total_failed: z.number().int().min(0),
  replay_gaps: z.number().int().min(0),
  last_error: z.object({ message: z.string(), at_unix_ms: z.number() }).nullable(),
  outbox_storage: z.object({ write_blocked: z.boolean() }),
}) satisfies z.ZodType<ConnectorState>;

const fileSchema = z.array(connectorStateSchema);

export class ConnectorStateFileError extends WeirError<'CONNECTOR_STATE_UNREADABLE'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('CONNECTOR_STATE_UNREADABLE', message, options);
  }
}

export function connectorStatePath(stateDir: string): string {
  return path.join(stateDir, CONNECTOR_STATE_FILE);
}

/** Replaces the state file atomically: a reader sees the old file or the new one, never a part. */
export async function writeConnectorState(stateDir: string, states: readonly ConnectorState[]): Promise<void> {
  await writeFileAtomic(connectorStatePath(stateDir), `${JSON.stringify(states)}\n`);
}

/**
 * Keeps the state file of a running node: `save` writes only when a sink's state changed
 * since the last successful write, so an idle node does not fsync the same file every
 * period, and a failed write is tried again on the next call.
 */
export class ConnectorStateSaver {
  private saved = '';

  constructor(private readonly stateDir: string) {}

  /** Resolves true when it wrote the file, false when nothing changed; rejects when the write failed. */
  async save(states: readonly ConnectorState[]): Promise<boolean> {
    const text = JSON.stringify(states);
    if (text === this.saved) return false;
    await writeConnectorState(this.stateDir, states);
    this.saved = text;
    return true;
  }
}

/** The persisted states; null when none were ever written. A damaged file is an error. */
export function readConnectorState(stateDir: string): ConnectorState[] | null {
  const file = connectorStatePath(stateDir);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new ConnectorStateFileError(`cannot read ${file}`, { cause: err });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ConnectorStateFileError(`${file} is not valid JSON`, { cause: err });
  }
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) throw new ConnectorStateFileError(`${file} does not hold connector states`);
  return parsed.data;
}
