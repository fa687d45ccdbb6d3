/** The `proxy authentication failed` lines of a node's JSON log output: inbound tag and user name of each. */
export function authFailures(log: string): { inbound: string; username: string | null }[] {
  return log
    .split('\n')
    .filter((line) => line.includes('"msg":"proxy authentication failed"'))
    .map((line) => {
      const entry = JSON.parse(line) as { inbound: string; username: string | null };
      return { inbound: entry.inbound, username: entry.username };
    });
}
