/** How the receiver treats the sink during one phase of the soak. */
export type PhaseKind = 'ok' | 'timeouts' | 'errors' | 'throttled' | 'down';

export interface Phase {
  readonly kind: PhaseKind;
  /** Seconds into the load. */
  readonly fromS: number;
  readonly toS: number;
}

/** The phases of a 600 s soak, in seconds; a shorter or longer soak scales them, the outage at most a minute. */
const PLAN: readonly [PhaseKind, number][] = [
  ['ok', 60],
  ['timeouts', 30],
  ['ok', 60],
  ['errors', 30],
  ['ok', 60],
  ['throttled', 30],
  ['ok', 60],
  ['down', 60],
];

/** The receiver's phases over `seconds` of load; the last one, `ok`, runs to the end. */
export function receiverPhases(seconds: number): Phase[] {
  const scale = seconds / 600;
  const phases: Phase[] = [];
  let at = 0;
  for (const [kind, length] of PLAN) {
    const s = kind === 'down' ? Math.min(60, length * scale) : length * scale;
    phases.push({ kind, fromS: at, toS: at + s });
    at += s;
  }
  phases.push({ kind: 'ok', fromS: at, toS: seconds });
  return phases;
}
