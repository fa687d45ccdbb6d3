import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * A loopback TCP relay in front of a real redis-server that can lose a command's reply,
 * as a network does when Redis or the link dies between running a command and
 * answering it: the command goes through and runs, then the connection is cut with its
 * reply undelivered. The client reconnects (through the relay again) and, as ioredis
 * does for commands in flight, sends it once more.
 */
export interface RedisReplyCut {
  /** redis:// URL of the relay. */
  url: string;
  /**
   * Cuts the next `times` connections whose client sends a command holding `marker`,
   * each once that command has had `runMs` to run in Redis. A command sent again after
   * its cut goes through: each cut loses the reply of another command.
   */
  cutAfter(marker: string, times: number, runMs?: number): void;
  /**
   * Holds the next command holding `marker`, and all after it on its connection, unsent
   * for good: a link that went dead before the command reached Redis.
   */
  stall(marker: string): void;
  /** The marked commands met so far (cut or held). */
  met(): number;
  close(): Promise<void>;
}

export async function startRedisReplyCut(redisPort: number): Promise<RedisReplyCut> {
  let marker = Buffer.alloc(0);
  let armed = 0;
  /** null: the marked command is held, not run. */
  let runMs: number | null = 200;
  let met = 0;
  const cut = new Set<string>();
  const sockets = new Set<net.Socket>();

  const relay = net.createServer((client) => {
    const redis = net.connect({ host: '127.0.0.1', port: redisPort });
    const pair = [client, redis];
    for (const s of pair) {
      sockets.add(s);
      s.on('error', () => pair.forEach((p) => p.destroy()));
      s.on('close', () => {
        sockets.delete(s);
        pair.forEach((p) => p.destroy());
      });
    }
    let cutting = false;
    // The end of the previous chunk, so a marker split over two chunks is still seen.
    let tail = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      if (cutting) return;
      const seen = Buffer.concat([tail, chunk]);
      tail = seen.subarray(Math.max(0, seen.length - marker.length));
      const marked = armed > 0 && marker.length > 0 && seen.includes(marker) && !cut.has(chunk.toString('latin1'));
      if (!marked || runMs !== null) redis.write(chunk);
      if (!marked) return;
      armed--;
      met++;
      cut.add(chunk.toString('latin1'));
      cutting = true;
      if (runMs !== null) void sleep(runMs).then(() => pair.forEach((p) => p.destroy()));
    });
    // Nothing Redis answers from the cut command on reaches the client.
    redis.on('data', (chunk: Buffer) => {
      if (!cutting) client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const { port } = relay.address() as net.AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}`,
    cutAfter(m, times, ms = 200) {
      marker = Buffer.from(m);
      armed = times;
      runMs = ms;
    },
    stall(m) {
      marker = Buffer.from(m);
      armed = 1;
      runMs = null;
    },
    met: () => met,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => relay.close(() => resolve()));
    },
  };
}
