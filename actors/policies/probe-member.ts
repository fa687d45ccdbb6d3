import { isIP, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import { connect as tlsConnect } from 'node:tls';
import { within } from '../base/within.js';
import type { Outbound } from '../contracts/outbound.js';
import { readStatusCode } from './http-status-line.js';
import { ProbeError, probeErrorText } from './probe-error.js';
import type { ProbeTarget } from './probe-target.js';

/** One member's line in policy.probe.completed. */
export interface MemberProbe {
  target_tag: string;
  /** A 2xx or 3xx status line arrived within the timeout. */
  healthy: boolean;
  /** Whole ms from dial start to the status line; null when no status line arrived. */
  latency_ms: number | null;
  error: string | null;
}

export interface ProbeMemberOptions {
  /** Bound of the whole probe: dial, TLS, request and status line. */
  timeoutMs: number;
  /** Aborts the probe (the runner stops). */
  signal: AbortSignal;
}

/**
 * Probes one member through its own path: `outbound` (the member's leaf) dials the
 * url's host and port, then a `GET` goes over that connection and the status line is
 * read. Never rejects: a failure is an unhealthy result with its error.
 */
export async function probeMember(
  tag: string,
  outbound: () => Outbound,
  target: ProbeTarget,
  opts: ProbeMemberOptions,
): Promise<MemberProbe> {
  const opened: Duplex[] = [];
  let finished = false;
  // A dial that completes after the deadline is closed as soon as it arrives.
  const track = <S extends Duplex>(stream: S): S => {
    stream.on('error', () => {}); // errors are read by whoever awaits the stream
    opened.push(stream);
    if (finished) stream.destroy();
    return stream;
  };
  const started = performance.now();
  try {
    const status = await within(exchange(outbound, target, opts.timeoutMs, track), opts.timeoutMs, opts.signal);
    if (status === null) {
      if (opts.signal.aborted) throw new ProbeError('PROBE_ABORTED', 'the probe runner stopped');
      throw new ProbeError('PROBE_TIMEOUT', `no HTTP status line within ${opts.timeoutMs} ms`);
    }
    const latency_ms = Math.round(performance.now() - started);
    const healthy = status >= 200 && status < 400;
    const error = healthy ? null : probeErrorText(new ProbeError('PROBE_HTTP_STATUS', `HTTP status ${status}`));
    return { target_tag: tag, healthy, latency_ms, error };
  } catch (err) {
    return { target_tag: tag, healthy: false, latency_ms: null, error: probeErrorText(err) };
  } finally {
    finished = true;
    for (const stream of opened) stream.destroy();
  }
}

async function exchange(
  outbound: () => Outbound,
  target: ProbeTarget,
  timeoutMs: number,
  track: <S extends Duplex>(stream: S) => S,
): Promise<number> {
  const dial = await outbound().dial(target.endpoint, { connectTimeoutMs: timeoutMs });
  const socket = track(dial.socket);
  const stream = target.tls ? await startTls(socket, target, track) : socket;
  const request =
    `GET ${target.requestPath} HTTP/1.1\r\nHost: ${target.hostHeader}\r\n` +
    'User-Agent: weir-probe\r\nAccept: */*\r\nConnection: close\r\n\r\n';
  return readStatusCode(stream, request);
}

function startTls(socket: Socket, target: ProbeTarget, track: <S extends Duplex>(stream: S) => S): Promise<Duplex> {
  const { host } = target.endpoint;
  return new Promise((resolve, reject) => {
    // SNI takes names only; an IP literal is checked against the certificate via `host`.
    const tls = track(tlsConnect({ socket, host, servername: isIP(host) ? undefined : host, ALPNProtocols: ['http/1.1'] }));
    tls.once('secureConnect', () => resolve(tls));
    tls.once('error', (err: Error) => reject(new ProbeError('PROBE_TLS_FAILED', `TLS handshake failed: ${err.message}`)));
  });
}
