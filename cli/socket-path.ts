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

/** What locates the socket in a config file: control.ipc and node.state_dir, as written there. */
interface SocketPlaces {
  ipc?: string | undefined;
  stateDir?: string | undefined;
}

/** Where the node's socket is; `note` says the config file was searched, not read, and why. */
export interface SocketPlace {
  path: string;
  note?: string;
}

function stringAt(value: unknown, outer: string, key: string): string | undefined {
  const inner = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[outer] : undefined;
  const found = typeof inner === 'object' && inner !== null ? (inner as Record<string, unknown>)[key] : undefined;
  return typeof found === 'string' && found !== '' ? found : undefined;
}

/** The first `"key": "value"` in a text that is not JSON (yet): a config half-way through an edit. */
function stringNamed(text: string, key: string): string | undefined {
  const match = new RegExp(`"${key}"\\s*:\\s*("(?:[^"\\\\\\n]|\\\\.)*")`).exec(text);
  if (!match) return undefined;
  try {
    const value = JSON.parse(match[1]!) as string;
    return value === '' ? undefined : value;
  } catch {
    return undefined;
  }
}

/**
 * control.ipc and node.state_dir of a config text. A text that does not parse (being
 * edited) is searched for the two keys instead: a broken config must not lock the
 * operator out of the node it started with a good one.
 */
function placesOf(text: string, file: string): SocketPlaces & { note?: string } {
  try {
    const raw: unknown = JSON.parse(text);
    return { ipc: stringAt(raw, 'control', 'ipc'), stateDir: stringAt(raw, 'node', 'state_dir') };
  } catch {
    const note = `${jsonSyntaxMessage(file, text)}; only its state_dir and ipc were looked for`;
    return { ipc: stringNamed(text, 'ipc'), stateDir: stringNamed(text, 'state_dir'), note };
  }
}

/**
 * control.ipc of a config file, defaulting to `<state_dir>/weir.sock`, both relative
 * to the file (docs/configuration.md, "Paths"). Read from the raw text rather than
 * through the full config load: a client needs neither the node's secrets (`{ "env": … }`
 * keys only the node's environment holds) nor a config that validates.
 */
function socketOfConfig(file: string): SocketPlace {
  const full = path.resolve(file);
  let text: string;
  try {
    text = fs.readFileSync(full, 'utf8');
  } catch (err) {
    throw new Error(`cannot read config file ${full} (${(err as NodeJS.ErrnoException).code ?? 'read error'})`, { cause: err });
  }
  const dir = path.dirname(full);
  const places = placesOf(text, full);
  const socket = places.ipc ? path.resolve(dir, places.ipc) : path.join(path.resolve(dir, places.stateDir ?? './state'), 'weir.sock');
  return places.note ? { path: socket, note: places.note } : { path: socket };
}

/**
 * Where the node's IPC socket is: `--ipc PATH`, else control.ipc of `-c FILE`, else
 * `weir.sock` in the default state dir (WEIR_STATE_DIR, or ./state), as `weir run`
 * without a config places it.
 */
export function locateSocket(flags: SocketFlags, env: NodeJS.ProcessEnv = process.env): SocketPlace {
  if (flags.ipc) return { path: path.resolve(flags.ipc) };
  if (flags.config) return socketOfConfig(flags.config);
  return { path: path.resolve(env['WEIR_STATE_DIR'] || './state', 'weir.sock') };
}
