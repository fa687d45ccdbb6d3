/** `host:port` as written in a CONNECT request line and in messages; IPv6 in brackets. */
export function authority(endpoint: { host: string; port: number }): string {
  return endpoint.host.includes(':') ? `[${endpoint.host}]:${endpoint.port}` : `${endpoint.host}:${endpoint.port}`;
}
