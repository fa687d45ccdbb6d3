/**
 * Child of journal-durability.spec.ts: appends to the `billing` outbox of the state dir
 * given as argv[2], one event per append, and prints `committed <sequence>` after
 * each append resolved, until it is killed. It also ends when its stdin closes, so a
 * parent that died first leaves no child appending behind.
 */
import { JournalOutboxStore } from '../../../actors/outbox/journal-outbox-store.js';

process.stdin.on('close', () => process.exit(0)).resume();
const store = new JournalOutboxStore({ stateDir: process.argv[2]!, limits: { max_bytes: 1 << 30, min_free_bytes: 0 } });
const outbox = await store.open('billing');
for (let seq = 1; ; seq++) {
  await outbox.append([{ id: `ev-${seq}`, sequence: seq, body: `{"n":${seq}}` }]);
  process.stdout.write(`committed ${seq}\n`);
}
