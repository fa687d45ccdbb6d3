import type { FlowAuth, FlowRecord } from './contract.js';

/**
 * What a flow actor's state stream carries: its new record and why it changed.
 * `traffic` changes come from the periodic counter read and are sampled; the
 * lifecycle changes are published at once.
 */
export interface FlowChange {
  kind: 'started' | 'routed' | 'traffic' | 'completed';
  record: FlowRecord;
  auth: FlowAuth;
}
