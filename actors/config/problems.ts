import { WeirError } from '../errors/weir-error.js';
/** One thing wrong with a config, located by a JSON path such as `outbounds[3].members[1]`. */
export interface ConfigProblem {
  /** JSON path of the offending value; "" for the document (or file) as a whole. */
  path: string;
  message: string;
}

export function formatProblem(p: ConfigProblem): string {
  return p.path === '' ? p.message : `${p.path}: ${p.message}`;
}

/** Builds `outbounds[3].members[1]` from zod's path segments. */
export function jsonPath(segments: readonly PropertyKey[]): string {
  let out = '';
  for (const s of segments) {
    if (typeof s === 'number') out += `[${s}]`;
    else out += out === '' ? String(s) : `.${String(s)}`;
  }
  return out;
}

/** Thrown where a caller wants an exception instead of a ConfigResult. */
export class ConfigError extends WeirError<'CONFIG_INVALID'> {
  readonly problems: ConfigProblem[];

  constructor(problems: ConfigProblem[], options?: ErrorOptions) {
    super('CONFIG_INVALID', problems.map(formatProblem).join('\n'), options);
    this.problems = problems;
  }
}
