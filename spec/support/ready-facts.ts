/** What a spec reads off the ready line `weir run` prints once it serves. */
export interface ReadyPorts {
  /** Inbound tag → the port it listens on. */
  inbounds: Record<string, number>;
  /** The control plane's base, e.g. `http://127.0.0.1:40123` (no `/api/v1`). */
  controlUrl: string;
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The ready line's ports, for the inbound `tags` of the config (a tag may hold spaces, so
 * each is looked up by name); undefined while `output` has no ready line. Throws when the
 * line names no port for a tag.
 */
export function readyPorts(output: string, tags: readonly string[]): ReadyPorts | undefined {
  const line = output.split('\n').find((l) => l.startsWith('weir: ready: '));
  if (line === undefined) return undefined;
  const inbounds: Record<string, number> = {};
  for (const tag of tags) {
    const port = new RegExp(`(?:proxy |, )${escape(tag)} \\S+:(\\d+) \\(`).exec(line)?.[1];
    if (port === undefined) throw new Error(`the ready line names no port for inbound "${tag}": ${line}`);
    inbounds[tag] = Number(port);
  }
  const controlUrl = /; control (https?:\/\/\S+)\/api\/v1(?:;|$)/.exec(line)?.[1];
  if (controlUrl === undefined) throw new Error(`the ready line names no control plane: ${line}`);
  return { inbounds, controlUrl };
}
