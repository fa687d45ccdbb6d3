import type net from 'node:net';
import { ECHO_BYTES } from './origins.js';
import { armTimeout, socksConnect, SocksClientError } from './socks5-client.js';

/** What the load client is asked to do; all targets and proxies are on 127.0.0.1. */
export type Job =
  | { kind: 'throughput'; proxyPort: number; targetPort: number; expectBytes: number; timeoutMs: number }
  | { kind: 'rate'; proxyPort: number; targetPort: number; workers: number; durationMs: number }
  | { kind: 'idle'; proxyPort: number; targetPort: number; count: number; concurrency: number };

export type JobResult =
  | { kind: 'throughput'; bytes: number; seconds: number; bitsPerSecond: number }
  | { kind: 'rate'; completed: number; failed: number; seconds: number; perSecond: number }
  | { kind: 'idle'; opened: number; failed: number };

export type IdleHeld = Extract<JobResult, { kind: 'idle' }>;

const PAYLOAD = Buffer.alloc(ECHO_BYTES, 0x2a);
/** Bounds one short-connection cycle or one tunnel set-up, so every loop ends. */
const STEP_TIMEOUT_MS = 10_000;

/** One stream pulling expectBytes from the source through the proxy. */
export async function throughput(job: Extract<Job, { kind: 'throughput' }>): Promise<JobResult> {
  const { socket, reader } = await socksConnect(job.proxyPort, job.targetPort, STEP_TIMEOUT_MS);
  let bytes = reader.release().length;
  const start = performance.now();
  const cancel = armTimeout(socket, job.timeoutMs, 'throughput stream');
  socket.on('data', (chunk: Buffer) => {
    bytes += chunk.length;
  });
  await new Promise((resolve) => socket.once('close', resolve));
  cancel();
  const seconds = (performance.now() - start) / 1000;
  if (bytes !== job.expectBytes) throw new SocksClientError(`received ${bytes} of ${job.expectBytes} bytes`);
  return { kind: 'throughput', bytes, seconds, bitsPerSecond: (bytes * 8) / seconds };
}

async function echoOnce(socket: net.Socket, take: (n: number) => Promise<Buffer>): Promise<void> {
  socket.write(PAYLOAD);
  const echo = await take(PAYLOAD.length);
  if (!echo.equals(PAYLOAD)) throw new SocksClientError('echo differs from what was sent');
}

function closed(socket: net.Socket): Promise<void> {
  return new Promise((resolve) => (socket.closed ? resolve() : socket.once('close', () => resolve())));
}

/** connect, handshake, 16-byte echo, close: the origin closes, and the proxy carries the close to us. */
async function cycle(proxyPort: number, targetPort: number): Promise<void> {
  const { socket, reader } = await socksConnect(proxyPort, targetPort, STEP_TIMEOUT_MS);
  const cancel = armTimeout(socket, STEP_TIMEOUT_MS, 'echo cycle');
  try {
    await echoOnce(socket, (n) => reader.take(n));
    reader.release();
    await closed(socket);
  } finally {
    cancel();
    socket.destroy();
  }
}

/** Short connections per second with job.workers concurrent workers, for job.durationMs. */
export async function connectionRate(job: Extract<Job, { kind: 'rate' }>): Promise<JobResult> {
  const start = performance.now();
  const deadline = start + job.durationMs;
  let completed = 0;
  let failed = 0;
  const worker = async (): Promise<void> => {
    while (performance.now() < deadline) {
      try {
        await cycle(job.proxyPort, job.targetPort);
        completed += 1;
      } catch {
        failed += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: job.workers }, worker));
  const seconds = (performance.now() - start) / 1000;
  return { kind: 'rate', completed, failed, seconds, perSecond: completed / seconds };
}

async function openTunnel(proxyPort: number, targetPort: number): Promise<net.Socket> {
  const { socket, reader } = await socksConnect(proxyPort, targetPort, STEP_TIMEOUT_MS);
  const cancel = armTimeout(socket, STEP_TIMEOUT_MS, 'tunnel echo');
  try {
    await echoOnce(socket, (n) => reader.take(n));
    reader.release();
    return socket;
  } catch (error) {
    socket.destroy();
    throw error;
  } finally {
    cancel();
  }
}

/**
 * Opens job.count tunnels that each echoed once and calls held while they are open. held
 * has the origin close them; they are destroyed here only if that takes over STEP_TIMEOUT_MS.
 */
export async function holdIdle(
  job: Extract<Job, { kind: 'idle' }>,
  held: (state: IdleHeld) => Promise<void>,
): Promise<JobResult> {
  const sockets: net.Socket[] = [];
  let failed = 0;
  let started = 0;
  const opener = async (): Promise<void> => {
    while (started < job.count) {
      started += 1;
      try {
        sockets.push(await openTunnel(job.proxyPort, job.targetPort));
      } catch {
        failed += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: job.concurrency }, opener));
  // A tunnel the proxy dropped while the others were opening does not count as held.
  const state: IdleHeld = { kind: 'idle', opened: sockets.filter((s) => !s.destroyed).length, failed };
  await held(state);
  const timer = setTimeout(() => sockets.forEach((s) => s.destroy()), STEP_TIMEOUT_MS);
  await Promise.all(sockets.map(closed));
  clearTimeout(timer);
  return state;
}
