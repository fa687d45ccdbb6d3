/**
 * A file's failed writes, told once per spell (from the first failure to the next
 * write that succeeds) and the spell's end told once: a full disk that lasts an hour is
 * two log lines, not one per tick.
 */
export class WriteSpell {
  private failing = false;

  constructor(
    private readonly onProblem: (problem: string) => void,
    private readonly onRecovered: (message: string) => void,
  ) {}

  failed(problem: string): void {
    if (this.failing) return;
    this.failing = true;
    this.onProblem(problem);
  }

  succeeded(message: string): void {
    if (!this.failing) return;
    this.failing = false;
    this.onRecovered(message);
  }
}

export const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
