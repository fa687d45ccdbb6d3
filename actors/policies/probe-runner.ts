import type { BusEvent } from '../../streams/contract.js';
import type { OutboundConfig } from '../config/schema.js';
import type { FlowFailureError } from '../errors/flow-failure.js';
import type { OutboundSet } from '../outbounds/outbound-set.js';
import { UrlTestPolicy } from '../outbounds/url-test-policy.js';
import { UnknownProbeGroupError, type ProbeCompletedPayload } from './policy-events.js';
import { FORWARD_GAP_MS, ProbeGroup } from './probe-group.js';
import { probeMember, type MemberProbe } from './probe-member.js';
import { probeTarget, type ProbeTarget } from './probe-target.js';

export interface ProbeRunnerOptions {
  /** The configured outbounds; the url_test ones are probed. */
  configs: readonly OutboundConfig[];
  /** The built outbounds: each url_test config's UrlTestPolicy, and the members' paths. */
  outbounds: OutboundSet;
  publish: (event: BusEvent) => void;
  /** Wall clock for the payloads' unix times. @defaultValue Date.now */
  now?: () => number;
  /** Milliseconds from a round's end to one a failed dial brings forward, at the earliest. @defaultValue FORWARD_GAP_MS (5000) */
  forwardGapMs?: number;
}

/**
 * Runs the probe rounds of every url_test group: one at start-up, then every
 * `interval_s`, and on request. Its timers are unref'd: they never keep the process up.
 */
export class ProbeRunner {
  private readonly groups = new Map<string, ProbeGroup>();
  private readonly abort = new AbortController();
  private readonly outbounds: OutboundSet;

  constructor(opts: ProbeRunnerOptions) {
    this.outbounds = opts.outbounds;
    for (const c of opts.configs) {
      if (c.type !== 'url_test') continue;
      const policy = opts.outbounds.policies.get(c.tag);
      if (!(policy instanceof UrlTestPolicy)) throw new UnknownProbeGroupError(`outbound set has no url_test "${c.tag}"`);
      this.groups.set(
        c.tag,
        new ProbeGroup({
          policy,
          target: probeTarget(c.url),
          intervalMs: c.interval_s * 1000,
          toleranceMs: c.tolerance_ms,
          timeoutMs: c.timeout_ms,
          forwardGapMs: opts.forwardGapMs ?? FORWARD_GAP_MS,
          outbounds: opts.outbounds,
          publish: opts.publish,
          now: opts.now ?? Date.now,
          signal: this.abort.signal,
        }),
      );
    }
  }

  /** Tags of the url_test groups, in config order. */
  get tags(): string[] {
    return [...this.groups.keys()];
  }

  /**
   * Starts every group's `startup` round; later rounds follow on their own. The
   * promise settles when the startup rounds are done and never rejects: callers need
   * not wait for it.
   */
  async start(): Promise<void> {
    await Promise.all([...this.groups.values()].map((g) => g.run('startup').catch(() => {})));
  }

  /**
   * A `manual` round of one group, or the round already running for it. Rejects with
   * UnknownProbeGroupError for a tag that is no url_test group, ProbeRunnerStoppedError
   * once stopped.
   */
  async probe(tag: string): Promise<ProbeCompletedPayload> {
    const group = this.groups.get(tag);
    if (!group) throw new UnknownProbeGroupError(`no url_test group "${tag}"`);
    return group.run('manual');
  }

  /**
   * One probe of `tag` (any outbound; a group is probed through the leaf it resolves
   * to now) against `target`, as a round probes a member; outside any round, so it
   * changes no group's choice. Aborted when the runner stops.
   */
  probeOnce(tag: string, target: ProbeTarget, timeoutMs: number): Promise<MemberProbe> {
    return probeMember(tag, () => this.outbounds.resolve(tag).outbound, target, { timeoutMs, signal: this.abort.signal });
  }

  /**
   * Told of a flow whose dial failed along `selectionChain`: each url_test group on it
   * brings its next round forward when the failure is the path's (a hop that refused,
   * was unreachable, timed out, broke or spoke wrongly). A hop's refusal of the CONNECT
   * (HOP_REJECTED) and a direct dial's failure are most often the target's: those wait
   * for the schedule.
   */
  pathFailed(selectionChain: readonly string[], failure: FlowFailureError): void {
    if (!failure.stage.startsWith('hop:') || failure.code === 'HOP_REJECTED') return;
    for (const tag of selectionChain) this.groups.get(tag)?.soon();
  }

  /** Cancels the schedule, aborts running probes and waits for their rounds to end; publishes nothing after. */
  async stop(): Promise<void> {
    this.abort.abort();
    await Promise.all([...this.groups.values()].map((g) => g.stop()));
  }
}
