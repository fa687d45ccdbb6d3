import type { DeadLetter } from '../../actors/contracts/outbox.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { printJson, table } from '../format.js';
import { callNode } from '../call-node.js';
import type { ClientFlags } from '../socket-path.js';

const USAGE = 'usage: weir dead-letters <sink_tag> | weir dead-letters replay <sink_tag> [event_id ...]';

/** `weir dead-letters <sink>` lists a Webhook sink's dead letters; `... replay <sink> [ids]` makes them pending again. */
export async function deadLettersCommand(args: readonly string[], flags: ClientFlags): Promise<number> {
  if (args[0] === 'replay') {
    const [, sink, ...ids] = args;
    if (!sink) throw new UsageError(USAGE);
    const result = await callNode(flags, { op: 'sinks.replay', sink, ...(ids.length > 0 ? { ids } : {}) });
    if (flags.json) printJson(result);
    else process.stdout.write(`${sink}: ${(result as { replayed: number }).replayed} dead letter(s) pending again\n`);
    return EXIT.ok;
  }
  const [sink, ...rest] = args;
  if (!sink || rest.length > 0) throw new UsageError(USAGE);
  const letters = (await callNode(flags, { op: 'sinks.dead_letters', sink })) as DeadLetter[];
  if (flags.json) printJson(letters);
  else if (letters.length === 0) process.stdout.write(`${sink}: no dead letters\n`);
  else {
    const rows = letters.map((l) => [l.id, String(l.sequence), String(l.attempts), new Date(l.dead_at_unix_ms).toISOString(), l.error]);
    process.stdout.write(table(['event_id', 'sequence', 'attempts', 'dead_at', 'error'], rows));
  }
  return EXIT.ok;
}
