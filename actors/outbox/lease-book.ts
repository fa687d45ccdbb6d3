/**
 * The leases one outbox instance handed out, in memory only: a process that dies loses
 * them, its entries pending again at the next open. A lease being settled stays until
 * its write commits, so it is neither leased again nor settled twice meanwhile.
 */
export class LeaseBook<T> {
  private readonly held = new Map<string, { value: T; settling: boolean }>();

  has(id: string): boolean {
    return this.held.has(id);
  }

  add(id: string, value: T): void {
    this.held.set(id, { value, settling: false });
  }

  delete(id: string): void {
    this.held.delete(id);
  }

  clear(): void {
    this.held.clear();
  }

  /** Runs `write` for the held leases of `ids` not being settled; forgets them once it succeeds. Null when none was held. */
  async settle<R>(ids: readonly string[], write: (leases: T[]) => Promise<R>): Promise<R | null> {
    const taken = ids.filter((id) => {
      const lease = this.held.get(id);
      if (!lease || lease.settling) return false;
      lease.settling = true;
      return true;
    });
    if (taken.length === 0) return null;
    try {
      const result = await write(taken.map((id) => this.held.get(id)!.value));
      for (const id of taken) this.held.delete(id);
      return result;
    } catch (err) {
      for (const id of taken) {
        const lease = this.held.get(id);
        if (lease) lease.settling = false;
      }
      throw err;
    }
  }
}
