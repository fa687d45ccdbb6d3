import type { ErrorCode } from './error-codes.js';

/**
 * The base of weir's errors: a stable code from the registry (error-codes.ts) that
 * programs branch on, and a message for people. `name` is the class's name.
 */
export class WeirError<C extends string = ErrorCode> extends Error {
  constructor(
    readonly code: C,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}
