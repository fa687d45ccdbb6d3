import * as assert from 'uvu/assert';
import { SCHEMA_ID } from '../../streams/contract.js';
import { WAIT_MS } from './far-bound.js';
import { readJsonl, waitForEvents, type JsonEnvelope } from './jsonl.js';

/** The events of one flow, in file order. */
export interface FlowLifecycle {
  flowId: string;
  started: JsonEnvelope;
  routed: JsonEnvelope | undefined;
  updated: JsonEnvelope[];
  completed: JsonEnvelope;
}

const FLOW_TYPES = new Set(['flow.started', 'flow.routed', 'flow.updated', 'flow.completed']);

function flowIdOf(e: JsonEnvelope): string {
  return String(e.payload['flow_id']);
}

/** Every flow_id that has a flow event in `events`. */
export function flowIds(events: readonly JsonEnvelope[]): Set<string> {
  return new Set(events.filter((e) => FLOW_TYPES.has(e.event_type)).map(flowIdOf));
}

/**
 * The lifecycle of one flow, asserting the contract's counts: exactly one
 * flow.started, at most one flow.routed and exactly one flow.completed, in that order.
 */
export function lifecycleOf(events: readonly JsonEnvelope[], flowId: string): FlowLifecycle {
  const mine = events.filter((e) => FLOW_TYPES.has(e.event_type) && flowIdOf(e) === flowId);
  const of = (type: string): JsonEnvelope[] => mine.filter((e) => e.event_type === type);
  const [started, routed, completed] = [of('flow.started'), of('flow.routed'), of('flow.completed')];
  assert.is(started.length, 1, `flow ${flowId}: one flow.started`);
  assert.ok(routed.length <= 1, `flow ${flowId}: at most one flow.routed`);
  assert.is(completed.length, 1, `flow ${flowId}: one flow.completed`);
  assert.is(mine[0], started[0], `flow ${flowId}: flow.started comes first`);
  assert.is(mine[mine.length - 1], completed[0], `flow ${flowId}: flow.completed comes last`);
  return { flowId, started: started[0]!, routed: routed[0], updated: of('flow.updated'), completed: completed[0]! };
}

/**
 * Waits until `count` flows not in `known` (connections made after `known` was
 * read) have completed, asserts there are no others, and returns their lifecycles
 * in the order they started.
 */
export async function nextFlows(file: string, known: ReadonlySet<string>, count: number, timeoutMs = WAIT_MS): Promise<FlowLifecycle[]> {
  const isNew = (e: JsonEnvelope): boolean => e.event_type === 'flow.completed' && !known.has(flowIdOf(e));
  const events = await waitForEvents(file, (all) => all.filter(isNew).length >= count, timeoutMs, `${count} new flow.completed`);
  const fresh = [...flowIds(events)].filter((id) => !known.has(id));
  assert.is(fresh.length, count, `${count} new flow(s), got ${fresh.join(', ')}`);
  return fresh.map((id) => lifecycleOf(events, id));
}

/** The one flow of the next connection; see nextFlows. */
export async function nextFlow(file: string, known: ReadonlySet<string>, timeoutMs = WAIT_MS): Promise<FlowLifecycle> {
  const [flow] = await nextFlows(file, known, 1, timeoutMs);
  return flow!;
}

/** Waits for the flow.routed of a flow not in `known` (the next connection, now active) and returns its flow_id. */
export async function nextRoutedFlowId(file: string, known: ReadonlySet<string>, timeoutMs = WAIT_MS): Promise<string> {
  const isNew = (e: JsonEnvelope): boolean => e.event_type === 'flow.routed' && !known.has(flowIdOf(e));
  const events = await waitForEvents(file, (all) => all.some(isNew), timeoutMs, 'a new flow.routed');
  return flowIdOf(events.find(isNew)!);
}

/** Flow ids already in the sink file, to tell the next connection's flow apart. */
export function knownFlows(file: string): Set<string> {
  return flowIds(readJsonl(file));
}

/**
 * The envelope rules over a whole sink file: schema_id, unique event_id, source_id =
 * node id, strictly increasing sequence, integer times, labels an object.
 */
export function assertEnvelopes(events: readonly JsonEnvelope[], nodeId: string): void {
  assert.ok(events.length > 0, 'the sink file has envelopes');
  const ids = new Set<string>();
  let previous = 0;
  for (const e of events) {
    assert.equal(
      Object.keys(e).sort(),
      ['event_id', 'event_type', 'labels', 'occurred_at_unix_ms', 'payload', 'principal_key', 'schema_id', 'sequence', 'source_id'],
      `envelope fields of ${e.event_type}`,
    );
    assert.is(e.schema_id, SCHEMA_ID);
    assert.is(typeof e.event_id, 'string');
    assert.not.ok(ids.has(e.event_id), `event_id ${e.event_id} is unique`);
    ids.add(e.event_id);
    assert.is(e.source_id, nodeId);
    assert.ok(Number.isInteger(e.sequence) && e.sequence > previous, `sequence ${e.sequence} follows ${previous}`);
    previous = e.sequence;
    assert.ok(Number.isInteger(e.occurred_at_unix_ms), 'occurred_at_unix_ms is an integer');
    assert.equal(e.labels, {});
  }
}

/** Every flow in the file has one flow.started and one flow.completed (and at most one flow.routed). */
export function assertEveryFlowComplete(events: readonly JsonEnvelope[]): void {
  for (const id of flowIds(events)) lifecycleOf(events, id);
}
