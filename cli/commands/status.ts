import { keyValues, printJson } from '../format.js';
import { ipcCall } from '../ipc-client.js';
import { resolveSocketPath, type ClientFlags } from '../socket-path.js';
import { EXIT } from '../exit-codes.js';

interface InboundView {
  tag: string;
  protocol: string;
  listen: { host: string; port: number } | null;
}

function show(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (Array.isArray(value)) return value.length === 0 ? '-' : value.map(show).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function showInbound(i: InboundView): string {
  return `${i.tag} (${i.protocol}) ${i.listen ? `${i.listen.host}:${i.listen.port}` : 'not listening'}`;
}

/** `weir status [--json]`: the node's runtime, including log_level and log_files. */
export async function statusCommand(flags: ClientFlags): Promise<number> {
  const runtime = (await ipcCall(resolveSocketPath(flags), { op: 'status' })) as Record<string, unknown>;
  if (flags.json) {
    printJson(runtime);
    return EXIT.ok;
  }
  const entries = Object.entries(runtime).map(([key, value]): [string, string] =>
    key === 'inbounds' && Array.isArray(value) ? [key, (value as InboundView[]).map(showInbound).join(', ') || '-'] : [key, show(value)],
  );
  process.stdout.write(keyValues(entries));
  return EXIT.ok;
}
