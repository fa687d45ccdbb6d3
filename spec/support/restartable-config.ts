import { freePorts } from './free-port.js';
import { E2E_API_KEY, e2eConfig, eventsPath, type E2eConfigParts } from './node-config.js';
import { tempDir } from './temp-dir.js';

export const RESTARTABLE_API_KEY = E2E_API_KEY;

export interface RestartableConfig {
  config: Record<string, unknown>;
  /** `http://127.0.0.1:<port>` of the control plane, the same on every start. */
  control: string;
  /** The JSONL sink `archive` of every event. */
  events: string;
  /** Inbound tag → its port, the same on every start. */
  ports: Record<string, number>;
}

export interface RestartableParts extends Omit<E2eConfigParts, 'stateDir' | 'inbounds'> {
  /** Inbounds without `port`; each gets a free loopback port. @defaultValue one SOCKS5 inbound `socks-in` */
  inbounds?: Record<string, unknown>[];
}

/**
 * An e2eConfig whose control plane and inbounds listen on fixed free ports, so a spec
 * can start the node again on the same config and state dir and reach it.
 */
export async function restartableConfig(parts: RestartableParts = {}): Promise<RestartableConfig> {
  const stateDir = tempDir();
  const given = parts.inbounds ?? [{ type: 'socks', tag: 'socks-in' }];
  const [control, ...ports] = await freePorts(given.length + 1);
  const inbounds = given.map((inbound, i) => ({ listen: '127.0.0.1', ...inbound, port: ports[i] }));
  const config = e2eConfig({ ...parts, stateDir, inbounds });
  config['control'] = { listen: `127.0.0.1:${control}`, api_key: RESTARTABLE_API_KEY };
  return {
    config,
    control: `http://127.0.0.1:${control}`,
    events: eventsPath(stateDir),
    ports: Object.fromEntries(given.map((inbound, i) => [inbound['tag'] as string, ports[i]!])),
  };
}
