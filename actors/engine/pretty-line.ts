const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/**
 * Fields a pretty line leaves out: shown at its start (time, level, message), the same on
 * every line (pid, hostname), or told by the message (an access line's fields, which
 * stay in the JSON form for scripts).
 */
const LEFT_OUT = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'access']);

/**
 * One pino JSON line as a person reads it in a terminal, in the manner of pino-pretty:
 * `12:00:01.234 WARN  message key=value ...`, the time in UTC. A line that is not JSON
 * is passed on as it is.
 */
export function prettyLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const time = typeof entry['time'] === 'number' ? new Date(entry['time']).toISOString().slice(11, 23) : '--:--:--.---';
  const level = (LEVELS[entry['level'] as number] ?? String(entry['level'])).padEnd(5);
  const fields = Object.entries(entry)
    .filter(([key]) => !LEFT_OUT.has(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return `${time} ${level} ${String(entry['msg'] ?? '')}${fields.length > 0 ? ` ${fields.join(' ')}` : ''}\n`;
}
