import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { WeirError } from '../actors/errors/weir-error.js';

/** sun_path holds 108 bytes on Linux and 104 on macOS, with the terminating NUL. */
const MAX_SOCKET_PATH_BYTES = 103;
/** How long a probe of an existing socket waits for a node to accept. */
const PROBE_TIMEOUT_MS = 1000;

export type IpcSocketErrorCode = 'IPC_SOCKET_IN_USE' | 'IPC_PATH_NOT_SOCKET' | 'IPC_PATH_TOO_LONG';

export class IpcSocketError extends WeirError<IpcSocketErrorCode> {}

/** Resolves true when something accepts a connection on the socket at `file`. */
function answers(file: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.connect(file);
    const done = (live: boolean): void => {
      clearTimeout(timer);
      probe.destroy();
      resolve(live);
    };
    // A node too busy to accept within the wait still counts as live: never steal its socket.
    const timer = setTimeout(() => done(true), PROBE_TIMEOUT_MS);
    probe.once('connect', () => done(true));
    probe.once('error', () => done(false));
  });
}

/**
 * Makes `file` free for a new socket: removes a socket left by a node that is gone,
 * and refuses when a live node answers on it or the path holds something else.
 */
export async function claimSocketPath(file: string): Promise<void> {
  if (Buffer.byteLength(file) > MAX_SOCKET_PATH_BYTES) {
    throw new IpcSocketError('IPC_PATH_TOO_LONG', `IPC socket path ${file} is longer than ${MAX_SOCKET_PATH_BYTES} bytes`);
  }
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (!stat.isSocket()) throw new IpcSocketError('IPC_PATH_NOT_SOCKET', `${file} exists and is not a socket`);
  if (await answers(file)) {
    throw new IpcSocketError('IPC_SOCKET_IN_USE', `another node is running: its IPC socket ${file} answers`);
  }
  fs.rmSync(file, { force: true });
}

/**
 * Listens on the Unix socket `file` with mode 0600. The umask is narrowed for the
 * bind itself, which happens synchronously inside listen(), so no client can connect
 * to a socket with wider permissions; the chmod afterwards states the mode outright.
 */
export async function listenPrivately(server: net.Server, file: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error): void => reject(err);
    server.once('error', onError);
    const umask = process.umask(0o177);
    try {
      server.listen(file, () => {
        server.off('error', onError);
        resolve();
      });
    } finally {
      process.umask(umask);
    }
  });
  fs.chmodSync(file, 0o600);
}
