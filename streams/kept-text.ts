/**
 * Text written from objects that are never changed in place (flow records are revised
 * by copy), each written once and kept while its object lives: a view asked for again
 * and again of mostly unchanged objects (an idle table, listed or sampled) is joining
 * kept text, not serializing. The writer should return flat text, as JSON.stringify
 * does: a template's concatenation is kept as pieces, walked again at every join.
 */
export class KeptText<T extends object> {
  private readonly texts = new WeakMap<T, string>();

  constructor(private readonly writeText: (value: T) => string) {}

  /** The text kept for `value`; undefined when it has none yet. */
  kept(value: T): string | undefined {
    return this.texts.get(value);
  }

  /** Writes the text of `value` and keeps it. */
  write(value: T): string {
    const text = this.writeText(value);
    this.texts.set(value, text);
    return text;
  }
}
