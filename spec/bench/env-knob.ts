/**
 * A whole-number setting of at least `min` from the environment, `fallback` when unset;
 * anything else ends the process with a usage error (exit 2) naming `tool` and the variable.
 */
export function envKnob(tool: string, name: string, fallback: number, min = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (Number.isInteger(value) && value >= min) return value;
  console.error(`${tool}: ${name} takes a whole number of at least ${min}, not ${JSON.stringify(raw)}`);
  process.exit(2);
}
