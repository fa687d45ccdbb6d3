import type { IpcReply } from '../../ipc/ipc-messages.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { connectIpc, onLines, refusal } from '../ipc-client.js';
import { PausingWriter } from '../pausing-writer.js';
import { locateSocket, type SocketFlags } from '../socket-path.js';

const USAGE = 'usage: weir events [--types TYPE,TYPE...]';

export interface EventsFlags extends SocketFlags {
  types?: string | undefined;
}

/** `--types a,b` as a list; null without the flag (every type). The node refuses a type it does not know. */
function typesOf(flag: string | undefined): string[] | null {
  if (flag === undefined) return null;
  const types = flag.split(',').map((t) => t.trim()).filter((t) => t !== '');
  if (types.length === 0) throw new UsageError(`${USAGE} (--types names no event type)`);
  return types;
}

/**
 * `weir events [--types a,b]`: the flow.snapshot baseline, then every live envelope, one JSON line
 * each on stdout (only the given types with --types, through the subscription's
 * whitelist), until Ctrl+C or SIGTERM, or the node's stop after engine.stopped (exit
 * 0). When stdout is slow, reading from the node pauses, so the node (not this process)
 * decides when the client is too slow.
 */
export async function eventsCommand(args: readonly string[], flags: EventsFlags): Promise<number> {
  if (args.length > 0) throw new UsageError(USAGE);
  const types = typesOf(flags.types);
  const place = locateSocket(flags);
  const socket = await connectIpc(place.path, place.note);
  return new Promise<number>((resolve) => {
    let done = false;
    const end = (code: number, message?: string): void => {
      if (done) return;
      done = true;
      if (message !== undefined) process.stderr.write(`weir: ${message}\n`);
      socket.destroy();
      resolve(code);
    };
    process.once('SIGINT', () => end(EXIT.ok));
    process.once('SIGTERM', () => end(EXIT.ok));
    // A reader that went away (`weir events | head`) is a normal end.
    process.stdout.on('error', () => end(EXIT.ok));

    const out = new PausingWriter(process.stdout, socket);
    let stopped = false;
    onLines(socket, (line) => {
      // The ACK is the only other line a subscription gets before an error or the end.
      const msg = JSON.parse(line) as IpcReply | { schema_id: string; event_type: string };
      if ('schema_id' in msg) {
        if (types === null || types.includes(msg.event_type)) out.write(`${line}\n`);
        stopped ||= msg.event_type === 'engine.stopped';
      } else if (msg.type === 'error') end(msg.code === 'SLOW_CONSUMER' ? EXIT.failure : EXIT.refused, refusal(msg).message);
    });
    socket.once('error', (err) => end(EXIT.failure, `IPC connection failed: ${err.message}`));
    // After engine.stopped the stream ends as the node does: a normal end.
    socket.once('close', () => (stopped ? end(EXIT.ok) : end(EXIT.failure, 'the node ended the event stream')));
    // engine.stopped is asked for even when not shown: it tells the node's stop from a cut stream.
    const events = types === null ? undefined : [...new Set([...types, 'engine.stopped'])];
    socket.write(`${JSON.stringify({ type: 'subscribe', id: 1, ...(events ? { events } : {}) })}\n`);
  });
}
