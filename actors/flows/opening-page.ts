/** A page of a listing in opening order, and the cursor of the page after it. */
export interface OpeningPage<T> {
  items: T[];
  /** The opening number of the page's last item when more follow it; null at the end. */
  next: number | null;
}

/**
 * The first `limit` entries opened after `after`, from entries in increasing opening
 * order. The cursor is an opening number, not an entry: it keeps its place when the
 * entry it came from has gone, and entries that go or come do not shift the others.
 */
export function pageAfter<T>(entries: Iterable<readonly [number, T]>, after: number, limit: number): OpeningPage<T> {
  const items: T[] = [];
  let last = after;
  for (const [opening, item] of entries) {
    if (opening <= after) continue;
    if (items.length === limit) return { items, next: last };
    items.push(item);
    last = opening;
  }
  return { items, next: null };
}
