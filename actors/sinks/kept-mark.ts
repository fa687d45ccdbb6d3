/** Checkpoints kept at most: under a store stalled for longer, the newest one moves on instead. */
const MAX_CHECKPOINTS = 600;

/**
 * How far a sink can vouch for the bus's events: the highest sequence through which
 * every event it takes is kept (in its file or outbox) or counted as a replay gap.
 * Publishing is synchronous, so every event up to the bus's last sequence at a moment
 * has been taken by then; once as many as were taken at that moment are settled
 * (sinks settle in the order they take), the mark moves to that sequence. One
 * checkpoint per tick: nothing is kept per event.
 */
export class KeptMark {
  private taken = 0;
  private settled = 0;
  private through: number;
  private readonly checkpoints: { taken: number; sequence: number }[] = [];

  /** `start`: the sequence the sink's events begin after. */
  constructor(start: number) {
    this.through = start;
  }

  /** Events taken from the bus (or ranges noted as missed outside it). */
  took(count = 1): void {
    this.taken += count;
  }

  /** Of those, `count` more kept or recorded as a gap, the oldest first. */
  settle(count: number): void {
    this.settled += count;
  }

  /** For a sink that counts what it settled as a running total. */
  settledTotal(total: number): void {
    this.settled = total;
  }

  /** Notes `lastSequence` (the bus's last, read now) and returns the mark. */
  checkpoint(lastSequence: number): number {
    const point = { taken: this.taken, sequence: lastSequence };
    if (this.checkpoints.length < MAX_CHECKPOINTS) this.checkpoints.push(point);
    else this.checkpoints[MAX_CHECKPOINTS - 1] = point;
    while (this.checkpoints.length > 0 && this.checkpoints[0]!.taken <= this.settled) this.through = this.checkpoints.shift()!.sequence;
    return this.through;
  }
}
