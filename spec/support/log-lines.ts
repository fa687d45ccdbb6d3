/** The node's JSON log lines (pino, one object a line) of its stdout; other lines are skipped. */
export function logLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The node's log lines that carry `code`. */
export function codeLines(stdout: string, code: string): Record<string, unknown>[] {
  return logLines(stdout).filter((l) => l['code'] === code);
}
