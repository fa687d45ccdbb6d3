import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export class NativeBuildError extends Error {
  readonly code = 'BENCH_NATIVE_BUILD';
}

/** Compiler flags: the source must build without a warning. */
export const CC_FLAGS = ['-O2', '-Wall', '-Wextra', '-Werror'];

/** Compiles the C source into binary with CC_FLAGS; renamed into place, so a bench started meanwhile never runs a half-written file. */
export function buildWeirLoad(source: string, binary: string): void {
  fs.mkdirSync(path.dirname(binary), { recursive: true });
  const partial = `${binary}.${process.pid}`;
  try {
    execFileSync('cc', [...CC_FLAGS, '-o', partial, source], { stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    fs.rmSync(partial, { force: true });
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    throw new NativeBuildError(`cc could not build ${path.basename(source)}: ${stderr || (error as Error).message}`);
  }
  fs.renameSync(partial, binary);
}

/**
 * The load client and origin (spec/bench/weir-load.c), compiled with the system cc into
 * <repoRoot>/.bench/weir-load when that is missing or older than the source. Returns its path.
 */
export function weirLoadBinary(repoRoot: string): string {
  const source = path.join(repoRoot, 'spec', 'bench', 'weir-load.c');
  const binary = path.join(repoRoot, '.bench', 'weir-load');
  if (!fs.existsSync(source)) throw new NativeBuildError(`${source} is missing`);
  const built = fs.existsSync(binary) ? fs.statSync(binary).mtimeMs : 0;
  if (built < fs.statSync(source).mtimeMs) buildWeirLoad(source, binary);
  return binary;
}
