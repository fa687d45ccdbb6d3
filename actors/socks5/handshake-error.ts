import { WeirError } from '../errors/weir-error.js';
/** Stable codes for a failed inbound handshake; the caller closes the connection on any of them. */
export type HandshakeErrorCode =
  | 'SOCKS_BAD_VERSION'
  | 'SOCKS_NO_ACCEPTABLE_METHOD'
  | 'SOCKS_AUTH_FAILED'
  | 'SOCKS_BAD_COMMAND'
  | 'SOCKS_BAD_ADDRESS_TYPE'
  | 'SOCKS_BAD_ADDRESS'
  | 'SOCKS_TRUNCATED'
  | 'HANDSHAKE_TIMEOUT'
  | 'HANDSHAKE_STREAM_ERROR';

/** Messages are fixed strings: they never carry what the client sent, so no credential can leak through them. */
export class HandshakeError extends WeirError<HandshakeErrorCode> {
  /** SOCKS_AUTH_FAILED: the user name the client offered, for the log, when it names a configured account. */
  readonly username: string | undefined;
  /** SOCKS_AUTH_FAILED: the name's length byte (ULEN), always safe to log. */
  readonly usernameLength: number | undefined;

  constructor(code: HandshakeErrorCode, message: string, options?: { cause?: unknown; username?: string; usernameLength?: number }) {
    super(code, message, options);
    this.username = options?.username;
    this.usernameLength = options?.usernameLength;
  }
}
