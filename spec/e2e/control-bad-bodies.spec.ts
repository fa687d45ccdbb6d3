import { pino } from 'pino';
import { EMPTY } from 'rxjs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startHttpControl, type HttpControl } from '../../http/control-server.js';
import { LineClient } from '../unit/ipc/line-client.js';
import { startIpcNode, type IpcNode } from '../support/ipc-node.js';
import { loudBefore } from '../support/loud-before.js';

let node: IpcNode;
let http: HttpControl;
let ipc: LineClient;

loudBefore(test, async () => {
  node = await startIpcNode();
  http = await startHttpControl(node.ops, {
    listen: { host: '127.0.0.1', port: 0 },
    apiKey: node.engine.config.control.api_key,
    healthRequiresKey: true,
    maxBodyBytes: 4096,
    logLines$: EMPTY,
    log: pino({ level: 'silent' }),
  });
  ipc = await LineClient.connect(node.socketPath);
});

test.after(async () => {
  ipc.close();
  await http.close();
  await node.stop();
});

/** The problem detail REST answers a bad body with (422 INVALID_BODY). */
async function restDetail(method: string, path: string, body: object): Promise<string> {
  const { port } = http.address();
  const res = await fetch(`http://127.0.0.1:${port}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${node.engine.config.control.api_key.reveal()}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const problem = (await res.json()) as { code: string; detail: string };
  assert.equal([res.status, problem.code], [422, 'INVALID_BODY'], path);
  return problem.detail;
}

/** The message IPC answers the same operation with, its path parts given as fields. */
async function ipcMessage(request: object): Promise<string> {
  ipc.send({ id: 'bad', ...request });
  const reply = await ipc.next();
  assert.equal([reply['type'], reply['code'], reply['id']], ['error', 'INVALID_BODY', 'bad']);
  return reply['message'] as string;
}

const CASES = [
  {
    what: 'a select with a number for member and an unknown key',
    rest: ['POST', '/policies/proxy/select', { member: 3, extra: true }],
    ipc: { op: 'select', selector: 'proxy', member: 3, extra: true },
    message: 'member: Invalid input: expected string, received number; body: Unrecognized key: "extra"',
  },
  {
    what: 'a mode that is neither rule nor global',
    rest: ['PUT', '/mode', { mode: 'loud' }],
    ipc: { op: 'mode', mode: 'loud' },
    message: 'mode: Invalid option: expected one of "rule"|"global"',
  },
  {
    what: 'a replay whose ids are not strings',
    rest: ['POST', '/sinks/hook/dead-letters/replay', { ids: [7] }],
    ipc: { op: 'sinks.replay', sink: 'hook', ids: [7] },
    message: 'ids.0: Invalid input: expected string, received number',
  },
] as const;

for (const c of CASES) {
  test(`REST and IPC refuse ${c.what} with the same message`, async () => {
    const [method, path, body] = c.rest;
    assert.is(await restDetail(method, path, body), c.message);
    assert.is(await ipcMessage(c.ipc), c.message);
  });
}

test.run();
