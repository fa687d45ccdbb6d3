import { freePorts } from './free-port.js';
import { e2eConfig, eventsPath } from './node-config.js';
import { tempDir } from './temp-dir.js';

export const RESTARTABLE_API_KEY = 'e2e-api-key-not-a-secret';

export interface RestartableConfig {
  config: Record<string, unknown>;
  /** `http://127.0.0.1:<port>` of the control plane, the same on every start. */
  control: string;
  /** The JSONL sink `archive` of every event. */
  events: string;
}

/**
 * An e2eConfig with a SOCKS5 inbound whose control plane listens on a fixed free port,
 * so a spec can start the node again on the same config and state dir and reach it.
 */
export async function restartableConfig(): Promise<RestartableConfig> {
  const stateDir = tempDir();
  const [socks, control] = await freePorts(2);
  const config = e2eConfig({ stateDir, inbounds: [{ type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port: socks }] });
  config['control'] = { listen: `127.0.0.1:${control}`, api_key: RESTARTABLE_API_KEY };
  return { config, control: `http://127.0.0.1:${control}`, events: eventsPath(stateDir) };
}
