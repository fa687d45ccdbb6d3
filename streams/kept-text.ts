/**
 * Text written from objects that are never changed in place (flow records are revised
 * by copy), each written once and kept while its object lives: a view asked for again
 * and again of mostly unchanged objects (an idle table, listed or sampled) is joining
 * kept text, not serializing. The writer should return flat text, as JSON.stringify
 * does: a template's concatenation is kept as pieces, walked again at every join.
 */
export class KeptText<T extends object> {
  private readonly texts = new WeakMap<T, string>();

  constructor(private readonly write: (value: T) => string) {}

  has(value: T): boolean {
    return this.texts.has(value);
  }

  /** The text of `value`, written now if it has none kept. */
  of(value: T): string {
    let text = this.texts.get(value);
    if (text === undefined) {
      text = this.write(value);
      this.texts.set(value, text);
    }
    return text;
  }
}
