import fs from 'node:fs';
import path from 'node:path';
import { checkControl } from './check-control.js';
import { checkListeners, checkSelfLoops } from './check-listeners.js';
import { checkRedisTls } from './check-redis-tls.js';
import { checkReferences } from './check-references.js';
import { checkSinkPaths } from './check-sink-paths.js';
import { checkSinkDelivery } from './check-sink-delivery.js';
import { deepFreeze } from './deep-freeze.js';
import { jsonSyntaxMessage } from './json-syntax-error.js';
import { issueMessage, issuesToProblems } from './issue-messages.js';
import type { ConfigProblem } from './problems.js';
import { readReferences } from './reference-view.js';
import { configSchema, type WeirConfig } from './schema.js';

export { defaultConfig, ensureApiKey } from './default-config.js';

export type ConfigResult = { ok: true; config: WeirConfig } | { ok: false; problems: ConfigProblem[] };

export interface ParseOptions {
  /** Directory that relative paths and secret files are resolved against. Default: the working directory. */
  baseDir?: string;
  /** Where `{ "env": NAME }` secrets are read. Default: process.env. */
  env?: NodeJS.ProcessEnv;
  /** Secrets that cannot be read stand as empty ones (SecretSources.lenient). @defaultValue false */
  lenientSecrets?: boolean;
  /** The file the document was read from, which no sink may write into. */
  configFile?: string;
}

/** Validates a config document and reports every problem at once; the config is deep-frozen. */
export function parseConfig(raw: unknown, opts: ParseOptions = {}): ConfigResult {
  const baseDir = path.resolve(opts.baseDir ?? process.cwd());
  const parsed = configSchema({ baseDir, env: opts.env ?? process.env, lenient: opts.lenientSecrets ?? false }).safeParse(raw, { error: issueMessage });
  const problems = [
    ...(parsed.success ? [] : issuesToProblems(parsed.error.issues)),
    ...checkReferences(readReferences(raw)),
  ];
  if (!parsed.success || problems.length > 0) return { ok: false, problems };
  // Checks of the parts together, on a config that is valid part by part.
  const placed = [...checkListeners(parsed.data), ...checkControl(parsed.data), ...checkSelfLoops(parsed.data), ...checkSinkPaths(parsed.data, opts.configFile), ...checkSinkDelivery(parsed.data), ...checkRedisTls(parsed.data)];
  if (placed.length > 0) return { ok: false, problems: placed };
  return { ok: true, config: deepFreeze(parsed.data) };
}

/** Reads, parses and validates a config file; relative paths resolve against its directory. */
export function loadConfigFile(file: string, opts: Pick<ParseOptions, 'env' | 'lenientSecrets'> = {}): ConfigResult {
  const full = path.resolve(file);
  let text: string;
  try {
    text = fs.readFileSync(full, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'read error';
    return { ok: false, problems: [{ path: '', message: `cannot read config file ${full} (${code})` }] };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { ok: false, problems: [{ path: '', message: jsonSyntaxMessage(full, text) }] };
  }
  return parseConfig(raw, { ...opts, baseDir: path.dirname(full), configFile: full });
}
