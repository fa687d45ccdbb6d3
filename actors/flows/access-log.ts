import type { Logger } from 'pino';
import type { FlowRecord } from '../../streams/contract.js';
import type { FlowChange } from '../../streams/flow-change.js';

/**
 * One `info` line per completed flow, as a proxy's access log: inbound, source, user,
 * target, outbound, outcome (with its failure code), bytes and duration. The line is
 * built only when it is written: off (`log.access: false`) or below `info`, a flow pays
 * one check. The user is its name; its password never reaches a flow's auth.
 */
export class AccessLog {
  constructor(
    private readonly log: Logger,
    /** Read for each flow: `log.access` is hot, as the level is. */
    private readonly enabled: () => boolean,
  ) {}

  observe(change: FlowChange): void {
    if (change.kind !== 'completed' || !this.enabled() || !this.log.isLevelEnabled('info')) return;
    const r = change.record;
    const user = change.auth.attributes['username'] ?? change.auth.principal_key;
    const source = r.source ? `${r.source.ip}:${r.source.port}` : null;
    const target = `${r.target.host}:${r.target.port}`;
    const outbound = outboundOf(r);
    const outcome = r.result?.outcome ?? null;
    const code = r.result?.failure?.code ?? null;
    const duration = r.timing.duration_ms;
    this.log.info(
      {
        access: {
          flow_id: r.flow_id,
          network: r.network,
          inbound: r.inbound.tag,
          source,
          user,
          target,
          outbound,
          outcome,
          code,
          bytes_up: r.traffic.bytes_up,
          bytes_down: r.traffic.bytes_down,
          duration_ms: duration,
        },
      },
      `${r.inbound.tag} ${source ?? '-'}${user ? ` (${user})` : ''} -> ${target} via ${outbound ?? '-'}: ${outcome ?? '-'}${code ? ` ${code}` : ''}, ` +
        `up ${r.traffic.bytes_up} B, down ${r.traffic.bytes_down} B, ${duration ?? '-'} ms`,
    );
  }
}

/** The route's target, and the leaf it reached when that differs (a group's member). */
function outboundOf(r: FlowRecord): string | null {
  const chosen = r.route.target;
  const leaf = r.path.outbound?.tag ?? null;
  if (chosen && leaf && leaf !== chosen) return `${chosen}/${leaf}`;
  return leaf ?? chosen;
}
