import { CONTROL_ERRORS } from '../errors/error-codes.js';
import { WeirError } from '../errors/weir-error.js';

export type ControlErrorCode = keyof typeof CONTROL_ERRORS;

/** A refusal of a control operation: its code (errors/error-codes.ts) maps to an HTTP status. */
export class ControlError extends WeirError<ControlErrorCode> {
  constructor(
    code: ControlErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(code, message);
  }

  get status(): number {
    return CONTROL_ERRORS[this.code].status;
  }
}
