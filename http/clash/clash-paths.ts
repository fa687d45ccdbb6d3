/**
 * The root paths of the Clash external-controller API (and everything under them).
 * Requests elsewhere are weir's own API and pass by the Clash middleware untouched.
 */
const PREFIXES = ['/version', '/configs', '/proxies', '/group', '/rules', '/providers', '/connections', '/traffic', '/memory', '/logs'];

export function isClashPath(path: string): boolean {
  return path === '/' || PREFIXES.some((p) => path === p || path.startsWith(`${p}/`));
}

/** The paths that stream over a WebSocket upgrade. */
export const CLASH_STREAM_PATHS = ['/connections', '/traffic', '/memory', '/logs'] as const;
export type ClashStreamPath = (typeof CLASH_STREAM_PATHS)[number];

export function clashStreamPath(path: string): ClashStreamPath | null {
  return (CLASH_STREAM_PATHS as readonly string[]).includes(path) ? (path as ClashStreamPath) : null;
}
