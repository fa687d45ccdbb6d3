import * as assert from 'uvu/assert';
import { FlowFailureError } from '../../../actors/errors/flow-failure.js';

/** The FlowFailureError a dial rejects with; fails the test if it resolves. */
export async function failureOf(promise: Promise<{ socket: { destroy(): void } }>): Promise<FlowFailureError> {
  let dialled: { socket: { destroy(): void } };
  try {
    dialled = await promise;
  } catch (err) {
    assert.instance(err, FlowFailureError);
    return err as FlowFailureError;
  }
  dialled.socket.destroy();
  assert.unreachable('expected the dial to fail');
  throw new Error('unreachable');
}
