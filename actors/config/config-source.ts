import fs from 'node:fs';
import path from 'node:path';
import { writeJsonFileSync } from '../files/atomic-json.js';
import { defaultConfig, loadConfigFile, parseConfig, type ConfigResult } from './load-config.js';
import type { ConfigProblem } from './problems.js';
import type { WeirConfig } from './schema.js';

/** Problems of a valid config against what the running node has (reload, config.apply). */
export type ConfigCheck = (config: WeirConfig) => ConfigProblem[];

const NO_CHECK: ConfigCheck = () => [];

function checked(result: ConfigResult, check: ConfigCheck): ConfigResult {
  if (!result.ok) return result;
  const problems = check(result.config);
  return problems.length > 0 ? { ok: false, problems } : result;
}

/**
 * Sections config.apply and reload may change while the node runs (of `log`, the level:
 * a new log file waits for a restart). The IPC hook is read per flow, so it is hot too.
 */
export const HOT_SECTIONS = ['event_sinks', 'route', 'log', 'ipc_hook'] as const;
export type HotSection = (typeof HOT_SECTIONS)[number];
export type Overlay = Partial<Record<HotSection, unknown>>;

/**
 * Where the node's config comes from: the file given to `run -c` (or the built-in
 * default) plus the overlay of sections changed by config.apply, kept in
 * `<state_dir>/applied-config.json` so a restart keeps them. The raw documents are
 * kept, so a change is validated as a whole before anything changes.
 */
export class ConfigSource {
  private overlay: Overlay = {};

  /** `file` null: the built-in default in `defaultStateDir`, or `document` when given (tests, embedding). */
  constructor(
    readonly file: string | null,
    private readonly defaultStateDir: string,
    private readonly document?: Record<string, unknown>,
  ) {}

  /**
   * Reads the file (again, on reload) and the overlay and validates the merge, and
   * with `check` against what the running node has.
   */
  load(check: ConfigCheck = NO_CHECK): ConfigResult {
    const base = this.readBase();
    if (!base.ok) return base.result;
    this.overlay = readOverlay(overlayPath(base.stateDir));
    return checked(this.parse({ ...base.raw, ...this.overlay }), check);
  }

  /** Validates `sections` merged over the current document as load does; persists them only when valid. */
  apply(sections: Overlay, check: ConfigCheck = NO_CHECK): ConfigResult {
    const base = this.readBase();
    if (!base.ok) return base.result;
    const overlay = { ...this.overlay, ...sections };
    const result = checked(this.parse({ ...base.raw, ...overlay }), check);
    if (result.ok) {
      // Atomic and private: the overlay may hold secrets given inline.
      writeJsonFileSync(overlayPath(result.config.node.state_dir), overlay);
      this.overlay = overlay;
    }
    return result;
  }

  /** The current raw section (file merged with overlay), for edits like upserting one sink. */
  rawSection(section: HotSection): unknown {
    const base = this.readBase();
    return this.overlay[section] ?? (base.ok ? base.raw[section] : undefined);
  }

  private parse(raw: Record<string, unknown>): ConfigResult {
    return parseConfig(raw, { baseDir: this.file ? path.dirname(path.resolve(this.file)) : process.cwd() });
  }

  private readBase():
    | { ok: true; raw: Record<string, unknown>; stateDir: string }
    | { ok: false; result: ConfigResult } {
    if (!this.file) {
      const raw = this.document ?? (defaultConfig(this.defaultStateDir) as Record<string, unknown>);
      const node = raw['node'] as { state_dir?: unknown } | undefined;
      return { ok: true, raw, stateDir: path.resolve(typeof node?.state_dir === 'string' ? node.state_dir : this.defaultStateDir) };
    }
    let raw: unknown;
    try {
      raw = JSON.parse(fs.readFileSync(this.file, 'utf8'));
    } catch {
      // Worded as `validate` words it, without quoting the file's text.
      return { ok: false, result: loadConfigFile(this.file) };
    }
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      return { ok: false, result: loadConfigFile(this.file) };
    }
    const doc = raw as Record<string, unknown>;
    const node = doc['node'] as { state_dir?: unknown } | undefined;
    const stateDir = path.resolve(path.dirname(path.resolve(this.file)), typeof node?.state_dir === 'string' ? node.state_dir : './state');
    return { ok: true, raw: doc, stateDir };
  }
}

function overlayPath(stateDir: string): string {
  return path.join(stateDir, 'applied-config.json');
}

function readOverlay(file: string): Overlay {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    if (typeof parsed !== 'object' || parsed === null) return {};
    const out: Overlay = {};
    for (const s of HOT_SECTIONS) if (s in parsed) out[s] = (parsed as Record<string, unknown>)[s];
    return out;
  } catch {
    return {};
  }
}

