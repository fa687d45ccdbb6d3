/** How the client reaches the target through the proxy: SOCKS5 CONNECT, HTTP CONNECT, or a plain TCP forwarder. */
export type Proto = 'socks5' | 'http' | 'none';

interface Through {
  /** The proxy's port on 127.0.0.1. */
  readonly port: number;
  readonly proto: Proto;
  /** What CONNECT asks for: an IPv4 address goes as one, a name as a domain. */
  readonly target: { readonly host: string; readonly port: number };
  /** SOCKS5 only: `user:password`, offered as RFC 1929 authentication. */
  readonly auth?: string;
}

/** One run of the native load client (weir-load.c); every proxy and target is on loopback. */
export type LoadJob =
  /** `streams` parallel streams of `bytes` each. @defaultValue 1 */
  | (Through & { readonly kind: 'stream'; readonly bytes: number; readonly streams?: number })
  | (Through & {
      readonly kind: 'rate';
      readonly concurrency: number;
      readonly ms: number;
      /** New connections a second; without it, as fast as the proxy takes them. */
      readonly perSecond?: number;
    })
  | (Through & { readonly kind: 'idle'; readonly count: number; readonly concurrency: number; readonly holdMs: number });

/** The client's command line for a job. */
export function loadArgs(job: LoadJob): string[] {
  const common = [
    '--port',
    String(job.port),
    '--proto',
    job.proto,
    '--target',
    `${job.target.host}:${job.target.port}`,
    ...(job.auth === undefined ? [] : ['--auth', job.auth]),
  ];
  switch (job.kind) {
    case 'stream':
      return ['stream', ...common, '--bytes', String(job.bytes), ...(job.streams === undefined ? [] : ['--streams', String(job.streams)])];
    case 'rate':
      return [
        'rate',
        ...common,
        '--concurrency',
        String(job.concurrency),
        '--ms',
        String(job.ms),
        ...(job.perSecond === undefined ? [] : ['--per-second', String(job.perSecond)]),
      ];
    case 'idle':
      return ['idle', ...common, '--count', String(job.count), '--concurrency', String(job.concurrency), '--hold-ms', String(job.holdMs)];
  }
}
