import * as assert from 'uvu/assert';

/** What `promise` rejects with; fails the test if it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  return assert.unreachable('expected a rejection');
}
