import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export type HookQuestion = Record<string, unknown> & { id: number };

/**
 * What the fake hook answers a question with: an object (sent with the question's
 * id), a raw line, or null for silence. It may be late: a promise. `connection` is
 * the number of the connection that asked, from 1 in the order accepted.
 */
export type Answerer = (q: HookQuestion, connection: number) => Record<string, unknown> | string | null | Promise<Record<string, unknown> | string | null>;

export interface FakeHook {
  path: string;
  questions: HookQuestion[];
  /** Connections accepted so far. */
  connections(): number;
  /** Ends the open connections, keeps listening. */
  hangUp(): void;
  close(): Promise<void>;
}

/** A socket path in a fresh temp dir; `remove` deletes the dir. */
export function hookSocketPath(name = 'hook.sock'): { path: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weir-hook-'));
  return { path: path.join(dir, name), remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A hook process stand-in: a Unix socket server speaking the line protocol, on
 * `socketPath` or in a temp dir of its own that close() removes.
 */
export async function startFakeHook(answer: Answerer, socketPath?: string): Promise<FakeHook> {
  const own = socketPath === undefined ? hookSocketPath() : null;
  const listenPath = socketPath ?? own!.path;
  const questions: HookQuestion[] = [];
  const open = new Set<net.Socket>();
  let accepted = 0;
  const server = net.createServer((socket) => {
    const connection = ++accepted;
    open.add(socket);
    socket.once('close', () => open.delete(socket));
    socket.on('error', () => undefined);
    let buffered = '';
    socket.setEncoding('utf8');
    socket.on('data', (text: string) => {
      buffered += text;
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const q = JSON.parse(buffered.slice(0, nl)) as HookQuestion;
        buffered = buffered.slice(nl + 1);
        questions.push(q);
        void Promise.resolve(answer(q, connection)).then((a) => {
          if (a === null || socket.destroyed) return;
          socket.write(typeof a === 'string' ? `${a}\n` : `${JSON.stringify({ id: q.id, ...a })}\n`);
        });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(listenPath, resolve));
  return {
    path: listenPath,
    questions,
    connections: () => accepted,
    hangUp: () => {
      for (const s of open) s.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => {
          own?.remove();
          resolve();
        });
      }),
  };
}
