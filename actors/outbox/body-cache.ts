/** Bodies of recent appends by position, up to maxBytes of UTF-8, so that leasing them reads no disk; the journal stays the truth. */
export class BodyCache {
  private readonly held = new Map<number, string>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  add(pos: number, body: string): void {
    const size = Buffer.byteLength(body);
    if (this.bytes + size > this.maxBytes) return;
    this.held.set(pos, body);
    this.bytes += size;
  }

  get(pos: number): string | undefined {
    return this.held.get(pos);
  }

  delete(pos: number): void {
    const body = this.held.get(pos);
    if (body === undefined) return;
    this.held.delete(pos);
    this.bytes -= Buffer.byteLength(body);
  }

  clear(): void {
    this.held.clear();
    this.bytes = 0;
  }
}
