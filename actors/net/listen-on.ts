import type { Server } from 'node:net';

/** What the OS says of the listen errors an operator can fix. */
const LISTEN_ERRORS: Record<string, string> = {
  EADDRINUSE: 'the address is in use (another process, or another listener of this config, has it)',
  EADDRNOTAVAIL: 'no interface of this host has the address',
  EACCES: 'the port needs privileges the process lacks',
};

/**
 * Starts `server` listening; rejects with the listen error instead of emitting it,
 * naming `name` (which listener of the config: `inbound "mixed-in"`, `control.listen`)
 * and the address, so a port in use says whose port it is.
 */
export function listenOn(server: Server, listen: { host: string; port: number }, name: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      const at = `${listen.host.includes(':') ? `[${listen.host}]` : listen.host}:${listen.port}`;
      const why = (err.code && LISTEN_ERRORS[err.code]) ?? err.message;
      reject(Object.assign(new Error(`${name} cannot listen on ${at}: ${err.code ?? 'error'}, ${why}`, { cause: err }), { code: err.code }));
    };
    server.once('error', onError);
    server.listen(listen.port, listen.host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}
