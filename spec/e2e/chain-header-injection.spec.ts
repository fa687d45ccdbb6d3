import net from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FlowRecord } from '../../streams/contract.js';
import { stopAndAudit } from '../support/audit.js';
import { fixture } from '../support/fixture.js';
import { recordOf } from '../support/flow-expect.js';
import { knownFlows, nextFlow } from '../support/flow-lifecycle.js';
import { e2eConfig, eventsPath } from '../support/node-config.js';
import { rawExchange } from '../support/raw-client.js';
import { startNode } from '../support/start-node.js';
import { tempDir } from '../support/temp-dir.js';

const SOCKS = 'socks-in';
const HOP = { username: 'u', password: 'p' };
const PROXY_AUTHORIZATION = `Proxy-Authorization: Basic ${Buffer.from('u:p').toString('base64')}`;
const INJECTED = 'victim.test:80 HTTP/1.1\r\nX-Injected: yes\r\n\r\nGET http://internal.test/admin HTTP/1.1\r\nHost: internal.test\r\nX-Pad: a';
const FORBIDDEN = 'HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n';

/** An upstream HTTP proxy that keeps every byte it is sent and answers each request head with 403. */
interface RecordingProxy {
  port: number;
  /** Everything received so far, on every connection, as latin1 text. */
  received(): string;
  close(): Promise<void>;
}

function startRecordingProxy(): Promise<RecordingProxy> {
  let received = '';
  const server = net.createServer((socket) => {
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (received.endsWith('\r\n\r\n')) socket.end(FORBIDDEN);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as net.AddressInfo).port,
        received: () => received,
        close: () => new Promise((done) => server.close(() => done())),
      }),
    );
  });
}

const setup = fixture(
  test,
  async () => {
    const upstream = await startRecordingProxy();
    const stateDir = tempDir();
    const node = await startNode(
      e2eConfig({
        stateDir,
        inbounds: [{ type: 'socks', tag: SOCKS, listen: '127.0.0.1', port: 0 }],
        outbounds: [{ type: 'http', tag: 'upstream', server: '127.0.0.1', port: upstream.port, ...HOP }],
        rules: [{ inbound: [SOCKS], outbound: 'upstream' }],
      }),
    );
    return { upstream, node, events: eventsPath(stateDir) };
  },
  async ({ upstream, node }) => {
    await node.stop();
    await upstream.close();
  },
);

/** A no-auth SOCKS5 CONNECT to the domain `name`, port 80, as one write. */
function connectDomain(name: string): Buffer {
  const bytes = Buffer.from(name, 'latin1');
  return Buffer.from([5, 1, 0, 5, 1, 0, 3, bytes.length, ...bytes, 0, 80]);
}

/** The no-auth method choice, then VER REP RSV ATYP(IPv4) 0.0.0.0:0 */
const answered = (rep: number): number[] => [5, 0, 5, rep, 0, 1, 0, 0, 0, 0, 0, 0];

test('a SOCKS5 domain carrying CR/LF and a second request is refused with reply 1; the http hop is sent nothing', async () => {
  const { upstream, node } = await setup();
  const before = upstream.received();
  const res = await rawExchange(node.ports[SOCKS]!, connectDomain(INJECTED));
  assert.ok(res.closed);
  assert.equal([...res.data], answered(1));
  assert.is(upstream.received(), before, 'the hop got no byte of it');
  assert.not.match(upstream.received(), 'X-Injected');
});

test('a host name reaches the http hop as one CONNECT with the configured credentials', async () => {
  const { upstream, node, events } = await setup();
  const known = knownFlows(events);
  const before = upstream.received();
  const res = await rawExchange(node.ports[SOCKS]!, connectDomain('victim.test'));
  assert.ok(res.closed);
  // The hop's 403 fails the flow: general failure to the client.
  assert.equal([...res.data], answered(1));
  const sent = upstream.received().slice(before.length);
  assert.is(sent, `CONNECT victim.test:80 HTTP/1.1\r\nHost: victim.test:80\r\n${PROXY_AUTHORIZATION}\r\n\r\n`);
  const flow = await nextFlow(events, known);
  const record: FlowRecord = recordOf(flow.completed);
  assert.equal(record.target, { host: 'victim.test', port: 80 });
  assert.is(record.result?.failure?.code, 'HOP_REJECTED');
});

test('the refused request opened no flow', async () => {
  const { node, events } = await setup();
  const all = await stopAndAudit(node, events);
  const started = all.filter((e) => e.event_type === 'flow.started').map((e) => recordOf(e).target.host);
  assert.equal(started, ['victim.test']);
});

test.run();
