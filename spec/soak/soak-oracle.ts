import { inAnyGap, type Gap } from '../support/replay-gaps.js';

/** One `flow.completed` as the node's JSONL archive holds it. */
export interface Archived {
  readonly eventId: string;
  readonly sequence: number;
}

/** What a JSONL archive held: its flow.completed events, and the lines that are not one whole JSON object. */
export interface ArchiveRead {
  readonly lines: number;
  readonly completed: readonly Archived[];
  /** Lines that do not parse, a last line without its newline included. */
  readonly torn: number;
}

export interface OracleInput {
  readonly archive: ArchiveRead;
  /** The event_id of every envelope the receiver acknowledged, once per acknowledgement (redeliveries repeat). */
  readonly acknowledged: readonly string[];
  readonly gaps: readonly Gap[];
  /** `replay_gaps` of the sink: more than `gaps` lists means some ranges are unknown. */
  readonly replayGaps: number;
  readonly totalDelivered: number;
  readonly deadLetters: number;
}

export interface Verdict {
  readonly completed: number;
  readonly acknowledgedDistinct: number;
  /** Acknowledgements beyond the first of an event_id. */
  readonly duplicates: number;
  /** Archived, never acknowledged, inside a reported gap. */
  readonly inGap: number;
  /** Archived, never acknowledged and in no reported gap: each one breaks the promise. */
  readonly missing: readonly Archived[];
  /** Acknowledged ids the archive does not hold (it loses its own window at a kill -9). */
  readonly notArchived: number;
  /** total_delivered less the distinct acknowledged ids. */
  readonly deliveredExcess: number;
  readonly failures: readonly string[];
}

/** Reads the archive's text; a line cut by a crash (no closing brace, or two records run together) counts as torn. */
export function readArchive(text: string): ArchiveRead {
  const parts = text.split('\n');
  const last = parts.pop() ?? '';
  let torn = last === '' ? 0 : 1;
  const completed: Archived[] = [];
  for (const line of parts) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      torn += 1;
      continue;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      torn += 1;
      continue;
    }
    const e = parsed as Record<string, unknown>;
    if (e['event_type'] === 'flow.completed') completed.push({ eventId: String(e['event_id']), sequence: Number(e['sequence']) });
  }
  return { lines: parts.length + (last === '' ? 0 : 1), completed, torn };
}

/**
 * The soak's promise: every archived flow.completed was acknowledged or lies in a
 * reported gap, total_delivered counts each acknowledged event once, nothing is a dead
 * letter and no archive line is torn.
 */
export function judge(input: OracleInput): Verdict {
  const acked = new Set(input.acknowledged);
  const archivedIds = new Set(input.archive.completed.map((a) => a.eventId));
  const unacked = input.archive.completed.filter((a) => !acked.has(a.eventId));
  const missing = unacked.filter((a) => !inAnyGap(a.sequence, input.gaps));
  const deliveredExcess = input.totalDelivered - acked.size;
  const failures: string[] = [];
  if (missing.length > 0) {
    const shown = missing.slice(0, 5).map((m) => `${m.eventId} (sequence ${m.sequence})`);
    failures.push(`${missing.length} archived flow.completed neither acknowledged nor in a reported gap, e.g. ${shown.join(', ')}`);
  }
  if (input.replayGaps > input.gaps.length && unacked.length > 0) {
    failures.push(`replay_gaps is ${input.replayGaps} but only ${input.gaps.length} gaps are listed: some ranges are unknown`);
  }
  if (deliveredExcess !== 0) failures.push(`total_delivered is ${input.totalDelivered}, the receiver acknowledged ${acked.size} distinct events`);
  if (input.deadLetters > 0) failures.push(`${input.deadLetters} dead letters`);
  if (input.archive.torn > 0) failures.push(`${input.archive.torn} torn lines in the JSONL archive`);
  return {
    completed: input.archive.completed.length,
    acknowledgedDistinct: acked.size,
    duplicates: input.acknowledged.length - acked.size,
    inGap: unacked.length - missing.length,
    missing,
    notArchived: [...acked].filter((id) => !archivedIds.has(id)).length,
    deliveredExcess,
    failures,
  };
}
