/** What the native load client prints: one JSON line per result (see weir-load.c). */
export interface ClientCpu {
  /** The client's own user + system CPU time since it started, in µs (getrusage). */
  readonly cpuUs: number;
}

export interface StreamResult extends ClientCpu {
  readonly mode: 'stream';
  readonly bytes: number;
  /** From the first byte written after the handshake until the origin acknowledged the last. */
  readonly seconds: number;
}

export interface RateResult extends ClientCpu {
  readonly mode: 'rate';
  readonly completed: number;
  readonly failed: number;
  readonly seconds: number;
  /** Connect-to-echo latency of the completed cycles, in µs. */
  readonly latencyUs: { readonly p50: number; readonly p90: number; readonly p99: number; readonly max: number };
}

export interface IdleResult extends ClientCpu {
  readonly mode: 'idle';
  /** held: the tunnels are open now; done: the origin closed them (or the hold ran out). */
  readonly event: 'held' | 'done';
  readonly held: number;
  readonly failed: number;
}

export type LoadLine = StreamResult | RateResult | IdleResult | { readonly mode: 'error'; readonly message: string };

export class LoadOutputError extends Error {
  readonly code = 'BENCH_LOAD_OUTPUT';
}

function count(o: Record<string, unknown>, key: string): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) throw new LoadOutputError(`field ${key} is ${JSON.stringify(v)}, not a count`);
  return v;
}

function object(v: unknown, what: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new LoadOutputError(`${what} is not a JSON object`);
  return v as Record<string, unknown>;
}

/** Parses and checks one line of the client's stdout. */
export function parseLoadLine(line: string): LoadLine {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new LoadOutputError(`not JSON: ${line.slice(0, 200)}`);
  }
  const o = object(parsed, 'the line');
  if (typeof o.error === 'string') return { mode: 'error', message: o.error };
  const cpuUs = count(o, 'cpu_user_us') + count(o, 'cpu_sys_us');
  switch (o.mode) {
    case 'stream':
      return { mode: 'stream', bytes: count(o, 'bytes'), seconds: count(o, 'seconds'), cpuUs };
    case 'rate': {
      const [completed, failed, seconds] = [count(o, 'completed'), count(o, 'failed'), count(o, 'seconds')];
      const l = object(o.latency_us, 'latency_us');
      const latencyUs = { p50: count(l, 'p50'), p90: count(l, 'p90'), p99: count(l, 'p99'), max: count(l, 'max') };
      return { mode: 'rate', completed, failed, seconds, latencyUs, cpuUs };
    }
    case 'idle': {
      if (o.event !== 'held' && o.event !== 'done') throw new LoadOutputError(`idle event ${JSON.stringify(o.event)}`);
      return { mode: 'idle', event: o.event, held: count(o, 'held'), failed: o.event === 'held' ? count(o, 'failed') : 0, cpuUs };
    }
    default:
      throw new LoadOutputError(`unknown mode ${JSON.stringify(o.mode)}`);
  }
}
