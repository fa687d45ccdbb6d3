/** Left-aligned columns separated by two spaces, headers in capitals, no trailing spaces. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers.map((h) => h.toUpperCase())), ...rows.map(line)].join('\n') + '\n';
}

/** `key  value` lines with the keys padded to one width. */
export function keyValues(entries: readonly (readonly [string, string])[]): string {
  const width = Math.max(0, ...entries.map(([k]) => k.length));
  return entries.map(([k, v]) => `${k.padEnd(width)}  ${v}`.trimEnd()).join('\n') + '\n';
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** 1536 → "1.5 KiB"; whole bytes below 1 KiB. */
export function bytes(n: number): string {
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${n} B` : `${value.toFixed(1)} ${UNITS[unit]}`;
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** 75_000 → "1m 15s", 7_380_000 → "2h 03m": the largest two units, the second one padded. */
export function age(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${pad2(s % 60)}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ${pad2(Math.floor((s % 3600) / 60))}m`;
  return `${Math.floor(s / 86_400)}d ${pad2(Math.floor((s % 86_400) / 3600))}h`;
}

/** 1234567 → "1,234,567": counts a person reads at a glance. */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}
