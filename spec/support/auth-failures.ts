/**
 * The `proxy authentication failed` lines of a node's JSON log output: inbound tag and
 * user name of each. A key written twice is refused (JSON.parse keeps the last one
 * silently; log pipelines may refuse the line).
 */
export function authFailures(log: string): { inbound: string; username: string | null }[] {
  return log
    .split('\n')
    .filter((line) => line.includes('"msg":"proxy authentication failed"'))
    .map((line) => {
      if (line.split('"inbound":').length !== 2) throw new Error(`one "inbound" key in ${line}`);
      const entry = JSON.parse(line) as { inbound: string; username: string | null };
      return { inbound: entry.inbound, username: entry.username };
    });
}
