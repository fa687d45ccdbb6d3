import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { EVENT_TYPES } from '../../streams/contract.js';
import { ConfigError } from './problems.js';

/**
 * What the built-in archive keeps: every event but the per-second `stats.sampled`
 * (about 56 MB a day on an idle node; a live stream or a sink of its own takes it) and
 * `flow.snapshot`, which no sink takes.
 */
export const DEFAULT_ARCHIVE_EVENTS = EVENT_TYPES.filter((t) => t !== 'stats.sampled' && t !== 'flow.snapshot');

/**
 * The built-in config of `weir run` without a config file: a mixed inbound and the
 * control plane on loopback, direct and block outbounds, and a JSONL archive of the
 * events but `stats.sampled`, everything kept in `stateDir`. The API key comes from `ensureApiKey`.
 */
export function defaultConfig(stateDir: string): unknown {
  return {
    node: { state_dir: stateDir },
    control: { listen: '127.0.0.1:9090', api_key: { file: path.join(stateDir, 'api_key') } },
    inbounds: [{ type: 'mixed', tag: 'mixed-in', listen: '127.0.0.1', port: 7890 }],
    outbounds: [
      { type: 'direct', tag: 'direct' },
      { type: 'block', tag: 'block' },
    ],
    route: { mode: 'rule', rules: [], final: 'direct' },
    event_sinks: [{ type: 'jsonl', tag: 'archive', path: path.join(stateDir, 'events.jsonl'), events: [...DEFAULT_ARCHIVE_EVENTS] }],
  };
}

function readKey(file: string): string | undefined {
  try {
    const key = fs.readFileSync(file, 'utf8').trim();
    return key === '' ? undefined : key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * Returns the API key in `<stateDir>/api_key`, generating a random 32-byte base64url
 * key (file mode 0600) the first time. The key is written to a temporary file and
 * linked into place, so a crash never leaves an empty key file and two starts racing
 * end up with the same key.
 */
export function ensureApiKey(stateDir: string): { key: string; created: boolean } {
  const file = path.join(stateDir, 'api_key');
  const existing = readKey(file);
  if (existing !== undefined) return { key: existing, created: false };
  fs.mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const key = randomBytes(32).toString('base64url');
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  fs.writeFileSync(tmp, `${key}\n`, { mode: 0o600 });
  try {
    fs.linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const winner = readKey(file);
    if (winner === undefined) {
      throw new ConfigError([{ path: '', message: `API key file ${file} exists but is empty` }], { cause: err });
    }
    return { key: winner, created: false };
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  return { key, created: true };
}
