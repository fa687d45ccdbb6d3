import { keyValues, printJson } from '../format.js';
import { callNode } from '../call-node.js';
import type { ClientFlags } from '../socket-path.js';
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

function showMode(m: { mode: string; global_target: string | null }): string {
  return m.mode === 'global' ? `global -> ${m.global_target}` : m.mode;
}

function showInbound(i: InboundView): string {
  return `${i.tag} (${i.protocol}) ${i.listen ? `${i.listen.host}:${i.listen.port}` : 'not listening'}`;
}

/** `weir status [--json]`: the node's runtime, including log_level and log_files. */
export async function statusCommand(flags: ClientFlags): Promise<number> {
  const runtime = (await callNode(flags, { op: 'status' })) as Record<string, unknown>;
  if (flags.json) {
    printJson(runtime);
    return EXIT.ok;
  }
  const entries = Object.entries(runtime).map(([key, value]): [string, string] => {
    if (key === 'inbounds' && Array.isArray(value)) return [key, (value as InboundView[]).map(showInbound).join(', ') || '-'];
    if (key === 'mode' && typeof value === 'object' && value !== null) return [key, showMode(value as { mode: string; global_target: string | null })];
    return [key, show(value)];
  });
  process.stdout.write(keyValues(entries));
  return EXIT.ok;
}
