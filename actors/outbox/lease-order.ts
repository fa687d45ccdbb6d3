/**
 * A journal's entry positions in ascending order, and `from`, where the next lease scan
 * starts: every pending position below it is leased, settled or not due yet. Appends
 * add at the end; settled ones are swept out once they are most of the list.
 */
export class LeaseOrder {
  private list: number[];
  private stale = 0;
  from = 0;

  constructor(positions: number[]) {
    this.list = positions.sort((a, b) => a - b);
  }

  push(pos: number): void {
    this.list.push(pos);
  }

  /** A position left for good; `keep` tells which remain when the list is swept. */
  settled(keep: (pos: number) => boolean): void {
    this.stale += 1;
    if (this.stale * 2 > this.list.length) {
      this.list = this.list.filter(keep);
      this.stale = 0;
    }
  }

  /** The scan starts at `pos` at the latest (an entry there is due again). */
  rewind(pos: number): void {
    this.from = Math.min(this.from, pos);
  }

  *scan(start: number): Generator<number> {
    let lo = 0;
    let hi = this.list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.list[mid]! < start) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.list.length; i++) yield this.list[i]!;
  }
}
