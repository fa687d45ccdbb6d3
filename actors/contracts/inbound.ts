/** An inbound listener: accepts client connections for one config entry. */
export interface Inbound {
  readonly tag: string;
  /** The config `type`: socks, http or mixed. */
  readonly protocol: string;
  start(): Promise<void>;
  /** Stops accepting; open flows are ended by the flow table. */
  stop(): Promise<void>;
  /** The bound address once started (port 0 resolves to a real port). */
  address(): { host: string; port: number } | null;
}
