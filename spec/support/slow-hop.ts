import net from 'node:net';

export interface SlowHop {
  port: number;
  close(): void;
}

/**
 * An HTTP CONNECT proxy on loopback that answers each CONNECT `delayMs` after it came
 * (never, when null) and then relays to the target: an upstream that keeps a flow's
 * dial pending for as long as a spec needs. Half-open on both sides, so a FIN travels
 * on as through weir's own relay.
 */
export async function startSlowHop(delayMs: number | null): Promise<SlowHop> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    sockets.add(client);
    client.on('error', () => client.destroy());
    client.on('close', () => sockets.delete(client));
    let head = '';
    const onData = (d: Buffer): void => {
      head += d.toString('latin1');
      const match = /^CONNECT ([^\s:]+):(\d+) /.exec(head);
      if (!head.includes('\r\n\r\n') || !match) return;
      client.off('data', onData);
      if (delayMs === null) return;
      setTimeout(() => {
        const target = net.connect({ port: Number(match[2]), host: match[1]!, allowHalfOpen: true }, () => {
          client.write('HTTP/1.1 200 Connection established\r\n\r\n');
          client.pipe(target).pipe(client);
        });
        sockets.add(target);
        target.on('error', () => client.destroy());
        client.on('close', () => target.destroy());
      }, delayMs);
    };
    client.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}
