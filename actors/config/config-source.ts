import fs from 'node:fs';
import path from 'node:path';
import { writeJsonFileSync } from '../files/atomic-json.js';
import { defaultConfig, loadConfigFile, parseConfig, type ConfigResult } from './load-config.js';
import { applyGuards } from './apply-guards.js';
import { HOT_SECTIONS, locate, mergeOverlay, withApplied, type ApplyRequest, type Overlay, type SinkEdits } from './applied-overlay.js';
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

/** Where a config comes from: the file, or the built-in default's state dir, and an overlay document. */
export interface ConfigOrigin {
  file: string | null;
  defaultStateDir: string;
  document?: Record<string, unknown>;
}

/**
 * Where the node's config comes from: the file given to `run -c` (or the built-in
 * default) plus the overlay of sections changed by config.apply, kept in
 * `<state_dir>/applied-config.json` so a restart keeps them. The raw documents are
 * kept, so a change is validated as a whole before anything changes.
 */
export class ConfigSource {
  private overlay: Overlay = {};
  /**
   * The state dir of the node running on this source, fixed at its first load: `node`
   * changes only on restart, so a reload must not read (or an apply write) the overlay
   * of a state dir the file names now.
   */
  private stateDir: string | null = null;

  /**
   * `file` null: the built-in default in `defaultStateDir`, or `document` when given
   * (tests, embedding). `lenientSecrets`: for an offline command (SecretSources.lenient).
   */
  constructor(
    readonly file: string | null,
    private readonly defaultStateDir: string,
    private readonly document?: Record<string, unknown>,
    private readonly lenientSecrets = false,
  ) {}

  /** What another process needs to read the same config: a worker of node.workers. */
  get origin(): ConfigOrigin {
    return { file: this.file, defaultStateDir: this.defaultStateDir, ...(this.document && { document: this.document }) };
  }

  /**
   * Reads the file (again, on reload) and the overlay and validates the merge, and
   * with `check` against what the running node has. A problem of an applied section
   * names the overlay file.
   */
  load(check: ConfigCheck = NO_CHECK): ConfigResult {
    const base = this.readBase();
    if (!base.ok) return base.result;
    this.stateDir ??= base.stateDir;
    this.overlay = readOverlay(this.overlayFile);
    return this.validated(base.raw, this.overlay, check);
  }

  /**
   * Validates the overlay with `request` applied over the current document as load
   * does; persists it only when valid. A problem of an upserted sink is named by its
   * place in the request.
   */
  apply(request: ApplyRequest, check: ConfigCheck = NO_CHECK): ConfigResult {
    const base = this.readBase();
    if (!base.ok) return base.result;
    this.stateDir ??= base.stateDir;
    const running = mergeOverlay(base.raw, this.overlay).doc;
    const refused = applyGuards(request, running, { baseDir: this.baseDir, stateDir: this.stateDir });
    if (refused.length > 0) return { ok: false, problems: refused };
    const overlay = withApplied(this.overlay, request.sections, request.edits);
    const result = this.validated(base.raw, overlay, check, request);
    if (result.ok) {
      // Atomic and private: the overlay may hold secrets given inline.
      writeJsonFileSync(this.overlayFile, overlay);
      this.overlay = overlay;
    }
    return result;
  }

  private get overlayFile(): string {
    return path.join(this.stateDir ?? this.defaultStateDir, 'applied-config.json');
  }

  private validated(file: Record<string, unknown>, overlay: Overlay, check: ConfigCheck, request?: ApplyRequest): ConfigResult {
    const merged = mergeOverlay(file, overlay);
    const result = checked(this.parse(merged.doc), check);
    if (result.ok) return result;
    return { ok: false, problems: result.problems.map((p) => locate(p, overlay, merged, this.overlayFile, request)) };
  }

  /** What relative paths in the config resolve against: the config file's directory. */
  private get baseDir(): string {
    return this.file ? path.dirname(path.resolve(this.file)) : process.cwd();
  }

  private parse(raw: Record<string, unknown>): ConfigResult {
    const base = { baseDir: this.baseDir, lenientSecrets: this.lenientSecrets };
    return parseConfig(raw, this.file ? { ...base, configFile: this.file } : base);
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

function readOverlay(file: string): Overlay {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    if (typeof parsed !== 'object' || parsed === null) return {};
    const out: Overlay = {};
    for (const s of HOT_SECTIONS) if (s in parsed) out[s] = (parsed as Record<string, unknown>)[s];
    const edits = (parsed as { sink_edits?: Partial<SinkEdits> }).sink_edits;
    if (edits && Array.isArray(edits.upsert) && Array.isArray(edits.remove)) out.sink_edits = { upsert: edits.upsert, remove: edits.remove.map(String) };
    return out;
  } catch {
    return {};
  }
}
