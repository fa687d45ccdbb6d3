// What resolving name targets for ip_cidr rules costs a connection (docs/pre-routing.md):
//   node dist/spec/bench/resolve-cost.js [--rounds N] [--connections N]
// Four nodes run at once: the direct and the chained (through microsocks) outbound, each
// with an ip_cidr rule that resolves and one with no_resolve. Each round opens, for every
// node in turn (the order rotates), N sequential SOCKS5 tunnels to `localhost` (resolved
// by getaddrinfo from /etc/hosts) and measures the median time to the CONNECT reply and
// the node's CPU per tunnel. The medians over the rounds are printed.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { parseArgs } from 'node:util';
import { e2eConfig } from '../support/node-config.js';
import { freePort } from '../support/free-port.js';
import { startNode, type WeirNode } from '../support/start-node.js';
import { tempDir } from '../support/temp-dir.js';
import { treeCpuTicks } from './proc-stats.js';
import { median } from './report.js';

const TICK_US = 1_000_000 / 100;
const LOCALHOST = Buffer.from('localhost');

interface Variant {
  label: string;
  node: WeirNode;
  latencyUs: number[];
  cpuUs: number[];
}

/** A SOCKS5 CONNECT to localhost:port through the node; resolves with the microseconds to the reply. */
async function tunnel(proxyPort: number, port: number): Promise<number> {
  const socket = net.connect({ host: '127.0.0.1', port: proxyPort, noDelay: true });
  const started = process.hrtime.bigint();
  const request = Buffer.from([5, 1, 0, 5, 1, 0, 3, LOCALHOST.length, ...LOCALHOST, port >> 8, port & 0xff]);
  socket.write(request);
  // The method choice (2 bytes) and a reply with an IPv4 or IPv6 bound address (10 or 22 bytes).
  const answer = await new Promise<Buffer>((resolve, reject) => {
    let got = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      if (got.length >= 12) resolve(got);
    });
    socket.once('error', reject);
    socket.once('close', () => reject(new Error(`closed after ${got.toString('hex')}`)));
  });
  const elapsed = Number(process.hrtime.bigint() - started) / 1000;
  socket.destroy();
  if (answer[3] !== 0) throw new Error(`CONNECT reply ${answer[3]}`);
  return elapsed;
}

/** A TCP origin on 127.0.0.1 and ::1 at one port that takes connections and nothing else. */
async function origin(): Promise<{ port: number; close(): void }> {
  const port = await freePort();
  const servers = await Promise.all(
    ['127.0.0.1', '::1'].map(
      (host) =>
        new Promise<net.Server>((resolve) => {
          const server = net.createServer((s) => s.on('error', () => s.destroy()));
          server.listen(port, host, () => resolve(server));
        }),
    ),
  );
  return { port, close: () => servers.forEach((s) => s.close()) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rounds: { type: 'string', default: '7' }, connections: { type: 'string', default: '200' } } });
  const rounds = Number(values.rounds);
  const connections = Number(values.connections);
  const target = await origin();
  const hopPort = await freePort();
  const hop = spawn('microsocks', ['-i', '127.0.0.1', '-p', String(hopPort)], { stdio: 'ignore' });
  const rule = (noResolve: boolean) => ({ ip_cidr: ['10.0.0.0/8'], ...(noResolve && { no_resolve: true }), outbound: 'block' });
  const variants: Variant[] = [];
  try {
    for (const [label, chained, noResolve] of [
      ['direct, no_resolve', false, true],
      ['direct, resolved for the rule', false, false],
      ['chained, no_resolve', true, true],
      ['chained, resolved for the rule', true, false],
    ] as const) {
      const config = e2eConfig({
        stateDir: tempDir(),
        inbounds: [{ type: 'socks', tag: 'socks-in', listen: '127.0.0.1', port: 0 }],
        outbounds: [{ type: 'socks', tag: 'hop', server: '127.0.0.1', port: hopPort }],
        rules: [rule(noResolve)],
        route: chained ? { final: 'hop' } : {},
      });
      // No per-flow lines on stderr: they would cost more than what is measured.
      config['log'] = { level: 'warn', access: false };
      variants.push({ label, node: await startNode(config), latencyUs: [], cpuUs: [] });
    }
    for (let round = 0; round < rounds; round++) {
      const order = variants.map((_, i) => variants[(i + round) % variants.length]!);
      for (const v of order) {
        const cpuBefore = treeCpuTicks(v.node.pid);
        const times: number[] = [];
        for (let i = 0; i < connections; i++) times.push(await tunnel(v.node.ports['socks-in']!, target.port));
        v.cpuUs.push(((treeCpuTicks(v.node.pid) - cpuBefore) * TICK_US) / connections);
        v.latencyUs.push(median(times));
      }
    }
    console.log(`${rounds} rounds of ${connections} sequential SOCKS5 tunnels to localhost; medians over the rounds`);
    console.log('variant                          reply latency (us)   node CPU per tunnel (us)');
    for (const v of variants) {
      console.log(`${v.label.padEnd(32)} ${median(v.latencyUs).toFixed(0).padStart(18)}   ${median(v.cpuUs).toFixed(0).padStart(24)}`);
    }
  } finally {
    await Promise.all(variants.map((v) => v.node.stop()));
    hop.kill();
    target.close();
  }
}

await main();
