import type { FlowRecord } from './contract.js';
import { flowRecordJson } from './flow-json.js';
import { KeptText } from './kept-text.js';
import { joinedSlices, textSlices } from './text-slices.js';

/** Each record's JSON, kept while the record lives: an idle flow is serialized once however often it is listed. */
const recordJson = new KeptText<FlowRecord>(flowRecordJson);

/** The JSON of `records` as array elements, a slice at a time (textSlices). */
export function recordSlices(records: readonly FlowRecord[], stopped?: () => boolean): AsyncGenerator<string> {
  return textSlices(records, recordJson, stopped);
}

/** Slices of array elements (recordSlices) as one JSON array. */
export async function joinSlices(slices: AsyncIterable<string>): Promise<string> {
  return `[${await joinedSlices(slices)}]`;
}
