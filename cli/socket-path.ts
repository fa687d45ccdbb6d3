import fs from 'node:fs';
import path from 'node:path';
import { jsonSyntaxMessage } from '../actors/config/json-syntax-error.js';

export interface SocketFlags {
  ipc?: string | undefined;
  config?: string | undefined;
}

/** The flags every client command of the node takes. */
export interface ClientFlags extends SocketFlags {
  json: boolean;
}

function objectAt(value: unknown, key: string): Record<string, unknown> {
  const inner = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return typeof inner === 'object' && inner !== null ? (inner as Record<string, unknown>) : {};
}

/**
 * control.ipc of a config file, defaulting to `<state_dir>/weir.sock`, both relative
 * to the file. Read from the raw JSON rather than through the full config load: a
 * client must find the socket without the node's secrets (`{ "env": … }` keys that
 * only the node's environment holds).
 */
function socketOfConfig(file: string): string {
  const full = path.resolve(file);
  let text: string;
  try {
    text = fs.readFileSync(full, 'utf8');
  } catch (err) {
    throw new Error(`cannot read config file ${full} (${(err as NodeJS.ErrnoException).code ?? 'read error'})`, { cause: err });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new Error(jsonSyntaxMessage(full, text));
  }
  const dir = path.dirname(full);
  const ipc = objectAt(raw, 'control')['ipc'];
  if (typeof ipc === 'string' && ipc !== '') return path.resolve(dir, ipc);
  const stateDir = objectAt(raw, 'node')['state_dir'];
  return path.join(path.resolve(dir, typeof stateDir === 'string' && stateDir !== '' ? stateDir : './state'), 'weir.sock');
}

/**
 * Where the node's IPC socket is: `--ipc PATH`, else control.ipc of `-c FILE`, else
 * `weir.sock` in the default state dir (WEIR_STATE_DIR, or ./state), as `weir run`
 * without a config places it.
 */
export function resolveSocketPath(flags: SocketFlags, env: NodeJS.ProcessEnv = process.env): string {
  if (flags.ipc) return path.resolve(flags.ipc);
  if (flags.config) return socketOfConfig(flags.config);
  return path.resolve(env['WEIR_STATE_DIR'] ?? './state', 'weir.sock');
}
