import type { ConnectorState } from '../../actors/contracts/sink.js';
import { readSinkOutboxState } from '../sink-outbox-state.js';
import { readConnectorState } from '../../actors/sinks/connector-state-file.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { printJson, table } from '../format.js';
import { fileConfigSource } from './run.js';
import { printProblems } from './validate.js';

type ConnectorReport = ConnectorState & { state_known: boolean };

function savedState(tag: string, type: string, known: ConnectorState | undefined): ConnectorReport {
  if (!known || known.type !== type) return unknownState(tag, type);
  const { tag: _tag, type: _type, ...counters } = known;
  return { tag, type, state_known: true, ...counters };
}

function unknownState(tag: string, type: string): ConnectorReport {
  return {
    tag,
    type,
    state_known: false,
    pending: 0,
    total_delivered: 0,
    total_failed: 0,
    replay_gaps: 0,
    last_error: null,
    outbox_storage: { write_blocked: false },
  };
}

/**
 * `weir connector state [--json] <config_file>`, offline: one entry per sink the node
 * runs on that file, the sinks a controller registered with config.apply (kept in the
 * state dir) included: after a crash the billing sink's backlog is the one to see. A Webhook sink's state is read from its outbox itself (exact even after a
 * kill -9); a JSONL sink's is the one the node last saved in the state dir. Zeros and
 * `state_known: false` when nothing is known of a sink. Exits 3 when Redis is configured
 * and does not answer, after showing what the state dir holds.
 */
export async function connectorCommand(args: readonly string[], json: boolean): Promise<number> {
  const [sub, file, ...rest] = args;
  if (sub !== 'state' || !file || rest.length > 0) throw new UsageError('usage: weir connector state [--json] <config_file>');
  // Sink state needs no token or key: the node's secrets need not be in this shell.
  const loaded = fileConfigSource(file, { lenientSecrets: true }).load();
  if (!loaded.ok) {
    printProblems(file, loaded.problems);
    return EXIT.failure;
  }
  const config = loaded.config;
  const persisted = new Map((readConnectorState(config.node.state_dir) ?? []).map((s) => [s.tag, s]));
  const reports: ConnectorReport[] = [];
  let redisError: Error | null = null;
  for (const sink of config.event_sinks) {
    const reading = sink.type === 'webhook' ? await readSinkOutboxState(config, sink.tag) : null;
    redisError ??= reading?.redisError ?? null;
    if (reading?.state) reports.push({ tag: sink.tag, type: sink.type, state_known: true, ...reading.state });
    else reports.push(savedState(sink.tag, sink.type, persisted.get(sink.tag)));
  }
  if (json) printJson(reports);
  else if (reports.length === 0) process.stdout.write(`${file}: no event sinks\n`);
  else {
    const headers = ['tag', 'type', 'known', 'pending', 'delivered', 'failed', 'replay_gaps', 'write_blocked', 'last_error'];
    const rows = reports.map((r) => [
      r.tag,
      r.type,
      r.state_known ? 'yes' : 'no',
      String(r.pending),
      String(r.total_delivered),
      String(r.total_failed),
      String(r.replay_gaps),
      r.outbox_storage.write_blocked ? 'yes' : 'no',
      r.last_error?.message ?? '-',
    ]);
    process.stdout.write(table(headers, rows));
  }
  if (!redisError) return EXIT.ok;
  // What Redis holds is missing from the figures: a script must not take them as whole.
  process.stderr.write(`weir: ${redisError.message}; the state shown is the state dir's alone\n`);
  return EXIT.unreachable;
}
