import { readFileSync } from 'node:fs';
import net from 'node:net';

/** Where picked ports start: above the well-known and registered ports tests are likely to meet. */
const LOWEST = 20000;

/**
 * The first port the kernel hands out for outgoing connections and listeners on port 0.
 * A port picked below it is never taken by a connect() between the pick and the child
 * process's bind, which a freed ephemeral port was (EADDRINUSE, seen in CI).
 */
function ephemeralStart(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > LOWEST + 1000 ? low : 32768;
  } catch {
    return 32768;
  }
}

const END = ephemeralStart();

/**
 * Every port this test process has handed out. The e2e fixtures of all spec files
 * boot at once, so a port picked for one node and not yet bound by it is still free
 * when another fixture probes it; two nodes were given the same port, and the second
 * failed to start while the first one's listener answered for it (seen in CI).
 */
const handedOut = new Set<number>();

function tryListen(port: number): Promise<net.Server | null> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(null));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/** A candidate port below the ephemeral range. */
export function randomPort(): number {
  return LOWEST + Math.floor(Math.random() * (END - LOWEST));
}

/** A candidate port not handed out before that nothing listens on now; it is handed out. */
async function takeFreePort(pick: () => number): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = pick();
    if (handedOut.has(port)) continue;
    // Reserved before the first await, so a concurrent call cannot take it meanwhile.
    handedOut.add(port);
    const server = await tryListen(port);
    if (server) {
      await new Promise((resolve) => server.close(resolve));
      return port;
    }
    handedOut.delete(port);
  }
  throw new Error(`no free loopback port found in ${LOWEST}-${END - 1}`);
}

/**
 * A loopback TCP port that was free a moment ago. Only for what port 0 cannot give: a
 * process that binds it and does not report a kernel port (redis-server, microsocks,
 * danted, tinyproxy, `weir deliver --health`), a node started
 * again on the same ports (restartableConfig), or a closed port for a dial failure.
 * Whatever reports its port listens on 0 instead: a weir node (startNode reads the
 * ready line) and in-process servers (server.address()).
 */
export async function freePort(): Promise<number> {
  return takeFreePort(randomPort);
}

/** Several free ports, each handed out once in this test process; `pick` proposes candidates. */
export async function freePorts(count: number, pick: () => number = randomPort): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) ports.push(await takeFreePort(pick));
  return ports;
}
