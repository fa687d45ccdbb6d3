import { FAILURE_CODES } from './failure-codes.js';

/**
 * The control plane's error codes. HTTP maps each to a status and an RFC 9457 problem
 * body; IPC and the CLI carry the same code.
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
  REDIS_UNAVAILABLE: { status: 503, title: 'Redis is not reachable' },
  INTERNAL: { status: 500, title: 'Internal error' },
} as const satisfies Record<string, { status: number; title: string }>;

/**
 * Codes only the HTTP listener answers, for refusals of its own (no operation raises
 * them, so IPC and the CLI never carry them).
 */
export const HTTP_PROBLEMS = {
  OUT_OF_SCOPE: { status: 403, title: 'The key\'s scope does not allow this operation' },
  AUTH_THROTTLED: { status: 429, title: 'Too many wrong keys from this address' },
  TOO_MANY_SUBSCRIBERS: { status: 503, title: 'Too many live subscribers' },
  HEADERS_TOO_LARGE: { status: 431, title: 'Request header fields too large' },
  REQUEST_TIMEOUT: { status: 408, title: 'Request timeout' },
} as const satisfies Record<string, { status: number; title: string }>;

/** The codes of the errors the node's parts raise to one another, to its log and to the CLI. */
export const INTERNAL_ERRORS = {
  SOCKS_BAD_VERSION: 'A client opened a SOCKS handshake with a version other than 5.',
  SOCKS_NO_ACCEPTABLE_METHOD: 'A SOCKS5 client offered no authentication method the inbound accepts.',
  SOCKS_AUTH_FAILED: 'A SOCKS5 client sent a user name and password no account of the inbound has.',
  SOCKS_BAD_COMMAND: 'A SOCKS5 client asked for a command other than CONNECT or UDP ASSOCIATE.',
  SOCKS_BAD_ADDRESS_TYPE: 'A SOCKS5 request named an address type other than IPv4, IPv6 or a domain name.',
  SOCKS_BAD_ADDRESS: 'A SOCKS5 request named an address that cannot be read (an empty or invalid domain name).',
  SOCKS_TRUNCATED: 'A SOCKS5 client closed the connection in the middle of its handshake.',
  HANDSHAKE_TIMEOUT: 'A client did not complete its handshake within the inbound handshake timeout.',
  HANDSHAKE_STREAM_ERROR: 'A client connection broke during its handshake.',
  HTTP_UPGRADE_NOT_FORWARDED: 'An origin switched protocols on a plain forwarded HTTP request, which carries no Upgrade.',
  FLOW_CANCELLED: 'A flow was ended (by the node, or its client leaving) before it was established.',
  HOP_NEGOTIATION: 'A hop of a chain answered its handshake with a failure; the flow fails with a HOP_* failure code.',
  OUTBOUND_UNKNOWN_HOP: 'A chain names a hop that is no socks or http outbound.',
  PROBE_TIMEOUT: 'A url_test probe got no HTTP status line within its timeout.',
  PROBE_ABORTED: 'A url_test probe was stopped with the probe runner.',
  PROBE_TLS_FAILED: 'A url_test probe could not complete TLS with its target.',
  PROBE_CLOSED: 'A url_test probe connection closed or failed before the HTTP status line.',
  PROBE_BAD_RESPONSE: 'A url_test probe got an answer that is no HTTP status line.',
  PROBE_HTTP_STATUS: 'A url_test probe got an HTTP status other than 2xx or 3xx.',
  PROBE_RUNNER_STOPPED: 'A probe was asked of a probe runner that has stopped.',
  PROBE_GROUP_NOT_FOUND: 'A probe was asked for a policy that is no url_test group.',
  PROBE_URL_UNSUPPORTED: 'A probe URL is neither http nor https.',
  SELECTIONS_UNREADABLE: 'The selectors\' saved choices in the state dir cannot be read.',
  SELECTIONS_UNWRITABLE: 'The selectors\' choices cannot be saved in the state dir.',
  CONFIG_JSON_SYNTAX: 'A config file is not JSON; the message names the line and column.',
  STATE_DIR_IN_USE: 'Another running weir node holds the state dir.',
  NODE_ID_IN_USE: 'Another running node holds the node id on the Redis of the outbox.',
  OUTBOX_WRITE_BLOCKED: 'Disk protection, or a Redis out of memory, pauses writes to an outbox: the events are a replay gap.',
  OUTBOX_UNAVAILABLE: 'The store of an outbox cannot be reached (Redis down); the embedded store takes the events.',
  OUTBOX_CLOSED: 'A call on an outbox after it was closed.',
  DELIVERY_RETRY: 'A Webhook delivery of a Redis job is retried at a later time (BullMQ\'s delayed set).',
  JSONL_OPEN_FAILED: 'A JSONL sink cannot open its file.',
  JSONL_FLUSH_FAILED: 'A JSONL sink cannot write or sync its file; the lines are kept for a retry.',
  CONNECTOR_STATE_UNREADABLE: 'The connector state saved in the state dir cannot be read.',
  CLASH_REFUSED: 'The Clash API refused a request, with the status and words mihomo gives.',
  IPC_SOCKET_IN_USE: 'Another running node answers on the IPC socket path.',
  IPC_PATH_NOT_SOCKET: 'The IPC socket path is taken by a file that is no socket.',
  IPC_PATH_TOO_LONG: 'The IPC socket path is longer than the system allows.',
  TLS_FILE_UNREADABLE: 'A file of control.tls (cert, key, client_ca) cannot be read; the message names it.',
  TLS_CERT_INVALID: 'A file of control.tls holds no PEM certificate, or its certificate cannot serve TLS.',
  TLS_CERT_EXPIRED: 'The certificate of control.tls has expired.',
  TLS_KEY_INVALID: 'The key of control.tls holds no PEM private key (encrypted keys are not supported).',
  TLS_KEY_MISMATCH: 'The key of control.tls is not the private key of its certificate.',
  CLI_USAGE: 'A weir command was given wrong arguments (exit 2).',
  NODE_UNREACHABLE: 'No node answers on the IPC socket (exit 3).',
} as const satisfies Record<string, string>;

/**
 * The one registry of weir's error codes, by group. Codes are stable (consumers key
 * on them) and unique across groups; docs/error-codes.md lists every one, and
 * docs/failure-codes.md the flow failures, kept in step by spec/unit/errors.
 */
export const ERROR_REGISTRY = {
  /** result.failure.code of a failed flow. */
  flow_failure: FAILURE_CODES,
  /** Control-plane refusals: HTTP problem bodies, IPC errors, the CLI's messages. */
  control: CONTROL_ERRORS,
  /** Refusals of the HTTP listener itself. */
  http_problem: HTTP_PROBLEMS,
  internal: INTERNAL_ERRORS,
} as const;

export type ErrorCode = { [G in keyof typeof ERROR_REGISTRY]: keyof (typeof ERROR_REGISTRY)[G] }[keyof typeof ERROR_REGISTRY];
