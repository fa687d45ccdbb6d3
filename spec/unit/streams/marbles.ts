import { TestScheduler } from 'rxjs/testing';
import * as assert from 'uvu/assert';

/** A TestScheduler that compares frames with uvu's deep equal. */
export function marbles(): TestScheduler {
  return new TestScheduler((actual, expected) => assert.equal(actual, expected));
}
