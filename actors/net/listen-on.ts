import type { Server } from 'node:net';

/** Starts `server` listening; rejects with the listen error (a port in use) instead of emitting it. */
export function listenOn(server: Server, listen: { host: string; port: number }): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
