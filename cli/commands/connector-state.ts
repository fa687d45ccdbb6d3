import { loadConfigFile } from '../../actors/config/load-config.js';
import type { ConnectorState } from '../../actors/contracts/sink.js';
import { readConnectorState } from '../../actors/sinks/connector-state-file.js';
import { EXIT, UsageError } from '../exit-codes.js';
import { printJson, table } from '../format.js';
import { printProblems } from './validate.js';

type ConnectorReport = ConnectorState & { state_known: boolean };

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
 * `weir connector state [--json] <config_file>`, offline: one entry per sink of the
 * config with the state the node last persisted in its state dir, or zeros and
 * `state_known: false` when it persisted none for that sink.
 */
export function connectorCommand(args: readonly string[], json: boolean): number {
  const [sub, file, ...rest] = args;
  if (sub !== 'state' || !file || rest.length > 0) throw new UsageError('usage: weir connector state [--json] <config_file>');
  const loaded = loadConfigFile(file);
  if (!loaded.ok) {
    printProblems(file, loaded.problems);
    return EXIT.failure;
  }
  const config = loaded.config;
  const persisted = new Map((readConnectorState(config.node.state_dir) ?? []).map((s) => [s.tag, s]));
  const reports = config.event_sinks.map((sink): ConnectorReport => {
    const known = persisted.get(sink.tag);
    if (!known || known.type !== sink.type) return unknownState(sink.tag, sink.type);
    const { tag, type, ...counters } = known;
    return { tag, type, state_known: true, ...counters };
  });
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
  return EXIT.ok;
}
