/** Tells the connector of an outbox that committed appends are waiting (Outbox.onAppend). */
export class AppendSignal {
  private readonly listeners = new Set<() => void>();

  /** Returns the unsubscribe function. */
  on(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  fire(): void {
    for (const listener of this.listeners) listener();
  }

  clear(): void {
    this.listeners.clear();
  }
}
