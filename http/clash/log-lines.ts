import { filter, map, type Observable, type OperatorFunction } from 'rxjs';
import { ClashError } from './clash-errors.js';

/** Clash's log levels, lowest first; `silent` lets nothing through. */
const CLASH_LEVELS = ['debug', 'info', 'warning', 'error', 'silent'] as const;
export type ClashLevel = (typeof CLASH_LEVELS)[number];

/** The lowest pino level number each Clash level lets through (pino: 20 debug, 30 info, 40 warn, 50 error). */
const PINO_FLOOR: Record<ClashLevel, number> = { debug: 0, info: 30, warning: 40, error: 50, silent: Infinity };

/** `?level=` of `/logs`: `info` when absent; anything else is refused (mihomo answers 400). */
export function clashLevelParam(value: unknown): ClashLevel {
  if (value === undefined || value === '') return 'info';
  if (typeof value === 'string' && (CLASH_LEVELS as readonly string[]).includes(value)) return value as ClashLevel;
  throw new ClashError(400, `level must be one of ${CLASH_LEVELS.join(', ')}`);
}

/** weir's log level as Clash names it (`/configs` `log-level`). */
export function clashLevelOf(weirLevel: string): ClashLevel {
  if (weirLevel === 'trace' || weirLevel === 'debug') return 'debug';
  if (weirLevel === 'warn') return 'warning';
  if (weirLevel === 'error' || weirLevel === 'fatal') return 'error';
  if (weirLevel === 'silent') return 'silent';
  return 'info';
}

/** A Clash log level as weir's (PATCH /configs `log-level`); weir has no `silent`, its quietest is `fatal`. */
export function weirLevelOf(level: ClashLevel): string {
  if (level === 'warning') return 'warn';
  return level === 'silent' ? 'fatal' : level;
}

function clashType(pinoLevel: number): Exclude<ClashLevel, 'silent'> {
  if (pinoLevel >= 50) return 'error';
  if (pinoLevel >= 40) return 'warning';
  if (pinoLevel >= 30) return 'info';
  return 'debug';
}

/** Fields every pino line has that the message text leaves out. */
const HEAD_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'msg']);

/**
 * The node's JSON log lines at or above `level` as Clash log messages
 * `{"type","payload"}`: the message, then the line's own fields as JSON.
 */
export function clashLogMessages(level: ClashLevel): OperatorFunction<string, string> {
  const floor = PINO_FLOOR[level];
  return (lines$: Observable<string>) =>
    lines$.pipe(
      map((line) => JSON.parse(line) as Record<string, unknown>),
      filter((entry) => typeof entry['level'] === 'number' && entry['level'] >= floor),
      map((entry) => {
        const fields = Object.fromEntries(Object.entries(entry).filter(([k]) => !HEAD_FIELDS.has(k)));
        const msg = typeof entry['msg'] === 'string' ? entry['msg'] : '';
        const payload = Object.keys(fields).length > 0 ? `${msg} ${JSON.stringify(fields)}` : msg;
        return JSON.stringify({ type: clashType(entry['level'] as number), payload });
      }),
    );
}
