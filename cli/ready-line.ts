import fs from 'node:fs';
import path from 'node:path';
import { authority } from '../actors/net/authority.js';

export interface ReadyFacts {
  inbounds: readonly { tag: string; protocol: string; listen: { host: string; port: number } | null }[];
  control: { host: string; port: number };
  /** Whether the control plane speaks HTTPS (control.tls). @defaultValue false */
  controlTls?: boolean;
  /** Where the API key comes from, as apiKeyOrigin says it. */
  apiKey: string;
  /** Whether the backlog dashboard is served (a node on Redis). */
  dashboard: boolean;
}

/**
 * Where the node's API key is, without the key: the built-in default's key file, a
 * `{ "file" }` path, a `{ "env" }` variable, or the config file itself.
 */
export function apiKeyOrigin(configFile: string | null, defaultKeyFile: string): string {
  if (configFile === null) return `in ${defaultKeyFile}`;
  let apiKey: unknown;
  try {
    apiKey = (JSON.parse(fs.readFileSync(configFile, 'utf8')) as { control?: { api_key?: unknown } }).control?.api_key;
  } catch {
    return `as ${configFile} gives it`;
  }
  if (typeof apiKey === 'object' && apiKey !== null) {
    const { file, env } = apiKey as { file?: unknown; env?: unknown };
    if (typeof file === 'string') return `in ${path.resolve(path.dirname(configFile), file)}`;
    if (typeof env === 'string') return `in $${env}`;
  }
  return `in ${configFile}`;
}

/**
 * The one line `weir run` prints once the node serves: where to point a proxy client,
 * the control plane, where its key is, and the dashboard when there is one.
 */
export function readyLine(facts: ReadyFacts): string {
  const proxies = facts.inbounds.map((i) => `${i.tag} ${i.listen ? authority(i.listen) : '(not listening)'} (${i.protocol})`);
  const control = `${facts.controlTls ? 'https' : 'http'}://${authority(facts.control)}`;
  const parts = [
    `proxy ${proxies.join(', ') || '(no inbounds)'}`,
    `control ${control}/api/v1`,
    `API key ${facts.apiKey}`,
    ...(facts.dashboard ? [`dashboard ${control}/dashboard`] : []),
  ];
  return `weir: ready: ${parts.join('; ')}\n`;
}
