// Child process entry: the smallest TCP forwarder Node can run, one listener per
// target (`node tcp-forward.js LISTEN=TARGET...`, ports on 127.0.0.1), socket.pipe both
// ways. No handshake: it is what a tunnel costs Node once a proxy has set it up.
import net from 'node:net';

function forward(listen: number, target: number): void {
  const server = net.createServer({ noDelay: true }, (client) => {
    const remote = net.connect({ host: '127.0.0.1', port: target, noDelay: true });
    client.on('error', () => remote.destroy());
    remote.on('error', () => client.destroy());
    client.pipe(remote);
    remote.pipe(client);
  });
  server.listen({ host: '127.0.0.1', port: listen, backlog: 4096 });
}

for (const pair of process.argv.slice(2)) {
  const [listen, target] = pair.split('=').map(Number);
  if (!listen || !target) throw new Error(`tcp-forward: ${pair} is not LISTEN=TARGET`);
  forward(listen, target);
}
