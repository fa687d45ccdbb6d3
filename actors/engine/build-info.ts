import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface BuildInfo {
  git_hash: string;
  features: string[];
  build_profile: string;
  /** SHA-256 over the built tree that `weir` executes (dist/, every file by path). */
  binary_sha256: string;
}

const FEATURES = [
  'inbound.socks5',
  'inbound.http',
  'inbound.mixed',
  'outbound.direct',
  'outbound.block',
  'outbound.socks',
  'outbound.http',
  'outbound.chain',
  'policy.selector',
  'policy.url_test',
  'sink.jsonl',
  'sink.webhook',
  'outbox.embedded',
  'outbox.redis',
  'control.http',
  'control.sse',
  'control.ws',
  'control.ipc',
];

/** dist/ — the artefact root, two levels above this compiled file (dist/actors/engine). */
const DIST = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

let cached: BuildInfo | null = null;

interface BuildStamp {
  git_hash?: string;
  build_profile?: string;
}

function readJson<T>(file: string): Partial<T> {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Partial<T>;
  } catch {
    // An unstamped build (plain tsc) still runs; it just cannot say its commit.
    return {};
  }
}

/** Reads the stamp `make build` wrote and hashes the artefact; the CLI and the running node agree. */
export function buildInfo(): BuildInfo {
  if (cached) return cached;
  const stamp = readJson<BuildStamp>(join(DIST, 'build-stamp.json'));
  cached = {
    git_hash: stamp.git_hash ?? 'unknown',
    features: FEATURES,
    build_profile: stamp.build_profile ?? 'dev',
    binary_sha256: hashTree(DIST),
  };
  return cached;
}

/**
 * `0.1.0+59a5d93c1f2e`: package.json's version (beside dist/ in a checkout and in an
 * installed package) and the commit of the build, as `weir --version` prints it and
 * the node's status reports it. Read without hashing the tree, so `--version` is quick.
 */
export function weirVersion(): string {
  const { version } = readJson<{ version: string }>(join(DIST, '..', 'package.json'));
  const hash = readJson<BuildStamp>(join(DIST, 'build-stamp.json')).git_hash ?? 'unknown';
  return `${version ?? '0.0.0'}+${hash.slice(0, 12)}`;
}

function hashTree(root: string): string {
  const hash = createHash('sha256');
  const files = listFiles(root).sort();
  for (const file of files) {
    hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'spec' ? [] : listFiles(full);
    return entry.name.endsWith('.js') || entry.name === 'build-stamp.json' ? [full] : [];
  });
}
