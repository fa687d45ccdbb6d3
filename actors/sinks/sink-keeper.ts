import type { ConnectorState, Sink } from '../contracts/sink.js';
import { ConnectorStateSaver } from './connector-state-file.js';
import { messageOf, WriteSpell } from '../files/write-spell.js';
import { keptMarks, SinkMarks } from './sink-marks.js';

/**
 * What the sinks must find again after a crash, written each tick in one order: their
 * connector states first, then their marks (SinkMarks). A mark passes an event once
 * its sink has kept it or counted it as a gap, and a JSONL sink counts its gaps only
 * in its connector state: a mark written ahead of that state would let a crash take
 * back a gap the mark had already passed. One round at a time; a tick that finds one
 * under way leaves it to the next.
 */
export class SinkKeeper {
  private readonly states: ConnectorStateSaver;
  readonly marks: SinkMarks;
  /** The round under way, if any. */
  private round: Promise<unknown> | null = null;
  /** Failed writes of the states are told once per spell. */
  private readonly spell: WriteSpell;

  constructor(
    stateDir: string,
    /** Told when a file cannot be read or written; the node runs on. */
    onProblem: (problem: string) => void,
    /** Told once when a file that could not be written can be again. */
    onRecovered: (message: string) => void = () => undefined,
  ) {
    this.states = new ConnectorStateSaver(stateDir);
    this.marks = new SinkMarks(stateDir, onProblem, onRecovered);
    this.spell = new WriteSpell(onProblem, onRecovered);
  }

  /** Each tick. A round whose states could not be written leaves the marks as they were. */
  tick(sinks: readonly Sink[], lastSequence: number): void {
    if (this.round) return;
    const marks = keptMarks(sinks, lastSequence);
    const states = sinks.map((s) => s.state());
    this.round = this.saveStates(states)
      .then((saved) => (saved ? this.marks.save(marks) : undefined))
      .finally(() => (this.round = null));
  }

  /**
   * The states written now, after a round under way: before a gap handed to a sink at
   * its start is forgotten where it was carried (MissedRanges). Resolves false when
   * they could not be written.
   */
  async keepStates(sinks: readonly Sink[]): Promise<boolean> {
    await this.round;
    return this.saveStates(sinks.map((s) => s.state()));
  }

  /**
   * At a clean stop, once the sinks have stopped: their last states, then no marks.
   * States that could not be written leave the marks, so the next start counts a gap
   * for what the lost counters had.
   */
  async stopped(sinks: readonly Sink[]): Promise<void> {
    if (await this.keepStates(sinks)) await this.marks.clear();
  }

  private async saveStates(states: readonly ConnectorState[]): Promise<boolean> {
    try {
      await this.states.save(states);
      this.spell.succeeded('the connector state is saved again');
      return true;
    } catch (err) {
      this.spell.failed(`the connector state cannot be saved (${messageOf(err)})`);
      return false;
    }
  }
}
