/**
 * The one registry of control-plane error codes. HTTP maps each to a status and an
 * RFC 9457 problem body; IPC and the CLI carry the same code.
 */
export const CONTROL_ERRORS = {
  UNAUTHORIZED: { status: 401, title: 'Missing or wrong API key' },
  NOT_FOUND: { status: 404, title: 'No such resource' },
  FLOW_NOT_FOUND: { status: 404, title: 'No such active flow' },
  POLICY_NOT_FOUND: { status: 404, title: 'No such policy' },
  TAG_NOT_FOUND: { status: 404, title: 'No such outbound tag' },
  NOT_A_MEMBER: { status: 422, title: 'Not a direct member of the selector' },
  BAD_REQUEST: { status: 400, title: 'Malformed request' },
  INVALID_BODY: { status: 422, title: 'Request body fails validation' },
  BODY_TOO_LARGE: { status: 413, title: 'Request body too large' },
  UNSUPPORTED_OPERATION: { status: 400, title: 'Unknown operation' },
  CONFIG_INVALID: { status: 422, title: 'Configuration is invalid' },
  UNAVAILABLE: { status: 503, title: 'The node is stopping' },
  INTERNAL: { status: 500, title: 'Internal error' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ControlErrorCode = keyof typeof CONTROL_ERRORS;

export class ControlError extends Error {
  override readonly name = 'ControlError';

  constructor(
    readonly code: ControlErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }

  get status(): number {
    return CONTROL_ERRORS[this.code].status;
  }
}
