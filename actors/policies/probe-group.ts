import type { BusEvent } from '../../streams/contract.js';
import type { OutboundSet } from '../outbounds/outbound-set.js';
import type { UrlTestPolicy } from '../outbounds/url-test-policy.js';
import { chooseMember } from './choose-member.js';
import {
  ProbeRunnerStoppedError,
  type PolicySelectedPayload,
  type ProbeCompletedPayload,
  type ProbeTrigger,
} from './policy-events.js';
import { probeMember } from './probe-member.js';
import type { ProbeTarget } from './probe-target.js';

/** Default of ProbeGroupOptions.forwardGapMs. */
export const FORWARD_GAP_MS = 5000;

export interface ProbeGroupOptions {
  policy: UrlTestPolicy;
  target: ProbeTarget;
  /** Milliseconds from the end of one round to the next scheduled one. */
  intervalMs: number;
  toleranceMs: number;
  /** Bound of each member's probe. */
  timeoutMs: number;
  /**
   * Milliseconds from the end of a round to one brought forward (soon) at the earliest:
   * a flood of flows failing through a dead member costs one round in this while.
   */
  forwardGapMs: number;
  outbounds: OutboundSet;
  publish: (event: BusEvent) => void;
  now: () => number;
  /** Aborted when the runner stops: in-flight probes end at once. */
  signal: AbortSignal;
}

/**
 * The probe rounds of one url_test group. At most one round runs at a time: a request
 * while a round runs gets that round's result. The next scheduled round is armed when
 * a round ends, whatever started it, so rounds never pile up however long they take.
 */
export class ProbeGroup {
  private running: Promise<ProbeCompletedPayload> | null = null;
  private timer: NodeJS.Timeout | null = null;
  /** False until a round found a healthy member: the first such round picks outright. */
  private measured = false;
  private stopped = false;
  /** now() when the last round ended, and when the timer's round is due. */
  private lastEnded = -Infinity;
  private dueAt = Infinity;

  constructor(private readonly opts: ProbeGroupOptions) {}

  run(trigger: ProbeTrigger): Promise<ProbeCompletedPayload> {
    if (this.stopped) return Promise.reject(new ProbeRunnerStoppedError(`url_test "${this.opts.policy.tag}" is stopped`));
    this.running ??= this.round(trigger).finally(() => {
      this.running = null;
      this.lastEnded = this.opts.now();
      this.schedule(this.opts.intervalMs);
    });
    return this.running;
  }

  /**
   * Brings the next scheduled round forward, to forwardGapMs after the last one at the
   * earliest: a dial through the chosen member failed, and until a round says
   * otherwise every flow would be sent to it (interval_s is 300 s by default). A round
   * under way probes it already.
   */
  soon(): void {
    if (this.stopped || this.running) return;
    const wait = Math.max(0, this.lastEnded + this.opts.forwardGapMs - this.opts.now());
    if (this.opts.now() + wait < this.dueAt) this.schedule(wait);
  }

  /** Ends the schedule and waits for a running round (its probes are aborted by the signal). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => {});
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.dueAt = this.opts.now() + delayMs;
    // A scheduled round that fails can only have been stopped: nothing to report.
    this.timer = setTimeout(() => this.run('scheduled').catch(() => {}), delayMs);
    this.timer.unref();
  }

  private async round(trigger: ProbeTrigger): Promise<ProbeCompletedPayload> {
    const { policy, target, outbounds, publish, now } = this.opts;
    const started = now();
    const members = await Promise.all(
      policy.members.map((tag) =>
        probeMember(tag, () => outbounds.resolve(tag).outbound, target, {
          timeoutMs: this.opts.timeoutMs,
          signal: this.opts.signal,
        }),
      ),
    );
    if (this.stopped) throw new ProbeRunnerStoppedError(`url_test "${policy.tag}" stopped during a round`);
    const next = chooseMember(this.measured ? policy.current() : null, members, this.opts.toleranceMs);
    if (next !== null) {
      this.measured = true;
      if (next !== policy.current()) {
        const previous = policy.choose(next);
        const selected: PolicySelectedPayload = { policy_tag: policy.tag, policy_kind: 'url_test', selected: next, previous };
        publish({ event_type: 'policy.selected', payload: selected });
      }
    }
    const completed = now();
    const payload: ProbeCompletedPayload = {
      policy_tag: policy.tag,
      trigger,
      url: target.publicUrl,
      started_at_unix_ms: started,
      completed_at_unix_ms: completed,
      duration_ms: completed - started,
      selected: policy.current(),
      members,
    };
    publish({ event_type: 'policy.probe.completed', payload });
    return payload;
  }
}
