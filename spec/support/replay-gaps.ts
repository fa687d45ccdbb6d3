/** A replay gap as a sink's connector state lists it: the sequences it missed, both included. */
export interface Gap {
  readonly from_sequence: number;
  readonly to_sequence: number;
}

/** Whether `sequence` lies inside one of `gaps`. */
export function inAnyGap(sequence: number, gaps: readonly Gap[]): boolean {
  return gaps.some((g) => g.from_sequence <= sequence && sequence <= g.to_sequence);
}
