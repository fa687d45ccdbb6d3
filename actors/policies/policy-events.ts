import type { MemberProbe } from './probe-member.js';
import { WeirError } from '../errors/weir-error.js';

// Payloads of the contract's policy events (node-runtime-observation.md, "Payloads").

export type ProbeTrigger = 'startup' | 'scheduled' | 'manual';

export interface ProbeCompletedPayload {
  policy_tag: string;
  trigger: ProbeTrigger;
  url: string;
  /** The probe cycle: from its start to its last member's result. */
  started_at_unix_ms: number;
  completed_at_unix_ms: number;
  duration_ms: number;
  /** The member the group uses after the round. */
  selected: string;
  /** One per member, in the group's member order. */
  members: MemberProbe[];
}

export interface PolicySelectedPayload {
  policy_tag: string;
  policy_kind: 'selector' | 'url_test';
  selected: string;
  previous: string;
}

export class ProbeRunnerStoppedError extends WeirError<'PROBE_RUNNER_STOPPED'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('PROBE_RUNNER_STOPPED', message, options);
  }
}

export class UnknownProbeGroupError extends WeirError<'PROBE_GROUP_NOT_FOUND'> {
  constructor(message: string, options?: { cause?: unknown }) {
    super('PROBE_GROUP_NOT_FOUND', message, options);
  }
}
