import net from 'node:net';
import type { IpcErrorReply, IpcReply } from '../ipc/ipc-messages.js';
import { LineReader } from '../actors/net/line-reader.js';
import { WeirError } from '../actors/errors/weir-error.js';

/** Replies and envelopes are single lines; a bigger one means something is wrong. */
const MAX_REPLY_LINE_BYTES = 64 * 1_048_576;
/** How long a one-shot request waits for its reply. */
const REPLY_TIMEOUT_MS = 10_000;

/** How an operator whose node runs elsewhere than the default state dir points the CLI at it. */
const POINT_AT_NODE = 'a node started with a config file: add -c FILE, or --ipc PATH';

/** The node is not running, or nothing answers on its socket. */
export class NodeUnreachableError extends WeirError<'NODE_UNREACHABLE'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('NODE_UNREACHABLE', message, options);
  }
}

/** The node answered and refused the request; `code` is the node's error code. */
export class NodeRefusedError extends WeirError<string> {
  constructor(
    code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(code, message);
  }
}

/**
 * Connects to the node's IPC socket; the reasons a node is not there become
 * NodeUnreachableError, with `note` (what else the operator should know) after them.
 */
export function connectIpc(socketPath: string, note?: string): Promise<net.Socket> {
  const after = note ? `\n${note}` : '';
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    socket.once('connect', () => {
      socket.off('error', onError);
      resolve(socket);
    });
    const onError = (err: NodeJS.ErrnoException): void => {
      if (err.code === 'ENOENT' || err.code === 'ENOTDIR') {
        reject(new NodeUnreachableError(`the node is not running (no IPC socket at ${socketPath}; ${POINT_AT_NODE})${after}`));
      } else if (err.code === 'ECONNREFUSED') {
        reject(new NodeUnreachableError(`the node is not running (nothing answers on the IPC socket at ${socketPath}; ${POINT_AT_NODE})${after}`));
      } else reject(new Error(`cannot connect to the IPC socket at ${socketPath}: ${err.message}`, { cause: err }));
    };
    socket.once('error', onError);
  });
}

/** Calls `onLine` with every line the socket delivers. */
export function onLines(socket: net.Socket, onLine: (line: string) => void): void {
  const reader = new LineReader(MAX_REPLY_LINE_BYTES);
  socket.on('data', (chunk: Buffer) => {
    const { lines, overflow } = reader.push(chunk);
    for (const line of lines) onLine(line);
    if (overflow) socket.destroy(new Error('the node sent an oversized line'));
  });
}

export function refusal(reply: IpcErrorReply): NodeRefusedError {
  return new NodeRefusedError(reply.code, reply.message, reply.details);
}

/**
 * One request, one reply: connects, sends `request`, and resolves with the reply's
 * `result` (or `stats`). An error reply rejects with NodeRefusedError.
 */
export async function ipcCall(socketPath: string, request: Record<string, unknown>, note?: string): Promise<unknown> {
  const socket = await connectIpc(socketPath, note);
  return new Promise<unknown>((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the node did not answer within ${REPLY_TIMEOUT_MS / 1000} s`));
    }, REPLY_TIMEOUT_MS);
    const settle = (fn: () => void): void => {
      clearTimeout(timer);
      socket.destroy();
      fn();
    };
    onLines(socket, (line) => {
      const reply = JSON.parse(line) as IpcReply;
      if (reply.id !== 1) return;
      if (reply.type === 'error') settle(() => reject(refusal(reply)));
      else if (reply.type === 'result') settle(() => resolve(reply.result));
      else if (reply.type === 'stats') settle(() => resolve(reply.stats));
      else settle(() => reject(new Error(`unexpected reply of type "${reply.type}"`)));
    });
    socket.once('error', (err) => settle(() => reject(err)));
    socket.once('close', () => settle(() => reject(new Error('the node closed the connection without a reply'))));
    socket.write(`${JSON.stringify({ ...request, id: 1 })}\n`);
  });
}
