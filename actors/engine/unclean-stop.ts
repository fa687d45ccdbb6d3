import type { Logger } from 'pino';
import type { SequenceReservation } from '../files/sequence-reservation.js';
import type { MissedRanges } from '../sinks/missed-ranges.js';
import type { Marks } from '../sinks/sink-marks.js';

export interface UncleanStop {
  /** What each sink had kept when the previous run last saved its marks; null after a clean stop. */
  left: Marks | null;
  sequences: SequenceReservation;
  missed: MissedRanges;
  log: Logger;
  now: () => number;
}

/**
 * After a run that did not stop cleanly (SinkMarks), each of its sinks' events past
 * what it had kept, up to where this run begins, are a missed range of its tag
 * (recorded as a replay gap when the tag starts). Returns the warning to publish, or null.
 */
export function carryUncleanStop({ left, sequences, missed, log, now }: UncleanStop): string | null {
  if (!left) return null;
  const to = sequences.first - 1;
  const ranges = Object.entries(left).filter(([, kept]) => kept < to);
  const behind = sequences.behind;
  const stopped = `the previous run did not stop cleanly (killed or crashed${behind ? `; ${behind}` : ''})`;
  if (ranges.length === 0) return stopped;
  const named = ranges.map(([tag, kept]) => `sink "${tag}" ${kept + 1}..${to}`).join(', ');
  try {
    for (const [tag, kept] of ranges) missed.add(tag, { from_sequence: kept + 1, to_sequence: to, at_unix_ms: now() });
  } catch (err) {
    log.warn({ err }, 'the ranges a crash may have lost could not be kept');
    return `${stopped}: the events it published past what each sink had kept (${named}) may be lost, and could not be counted as replay gaps (the state_dir cannot be written)`;
  }
  return `${stopped}: the events it published past what each sink had kept are counted as a replay gap (${named}); those kept after all are delivered as usual`;
}
