import type { ChildProcess } from 'node:child_process';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** Whether host:port accepts a TCP connection now. */
export function accepts(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** How a wait for a child's listener ended. */
export type ListenWait = 'listening' | 'exited' | 'timed out';

/** Polls until host:port accepts a connection, `child` exits, or `timeoutMs` passes. */
export async function waitListening(child: ChildProcess, port: number, timeoutMs: number, host = '127.0.0.1'): Promise<ListenWait> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (hasExited(child)) return 'exited';
    if (await accepts(port, host)) return 'listening';
    if (Date.now() >= deadline) return 'timed out';
    await sleep(25);
  }
}
