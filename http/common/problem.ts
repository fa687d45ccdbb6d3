import type { Response } from 'express';
import { ControlError, type ControlErrorCode } from '../../actors/control/control-error.js';
import { CONTROL_ERRORS, HTTP_PROBLEMS } from '../../actors/errors/error-codes.js';

/** An RFC 9457 problem body with weir's stable `code` (and the operation's details, if any). */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ProblemCode;
  details?: unknown;
}

export type ProblemCode = ControlErrorCode | keyof typeof HTTP_PROBLEMS;

const PROBLEMS = { ...CONTROL_ERRORS, ...HTTP_PROBLEMS };

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export function problem(code: ProblemCode, detail: string, details?: unknown): Problem {
  const { status, title } = PROBLEMS[code];
  const body: Problem = { type: `urn:weir:problem:${code.toLowerCase().replaceAll('_', '-')}`, title, status, detail, code };
  if (details !== undefined) body.details = details;
  return body;
}

/** The shape body-parser (through http-errors) gives its failures. */
function bodyParserType(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null || !('type' in err) || !('status' in err)) return undefined;
  return typeof err.type === 'string' ? err.type : undefined;
}

/**
 * The status a library gave an error of the request itself (express: a path that does
 * not decode; body-parser: a body that does not inflate), 4xx only.
 */
function clientStatus(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null || !('status' in err) || typeof err.status !== 'number') return undefined;
  return err.status >= 400 && err.status < 500 ? err.status : undefined;
}

/**
 * Maps anything thrown by a route to a problem. Messages of errors that are not
 * ControlErrors are never echoed: a JSON parse error quotes the request body, and an
 * internal error may name files or values.
 */
export function problemFor(err: unknown): Problem {
  if (err instanceof ControlError) return problem(err.code, err.message, err.details);
  switch (bodyParserType(err)) {
    case 'entity.too.large':
      return problem('BODY_TOO_LARGE', 'the request body exceeds control.max_body_bytes');
    case 'entity.parse.failed':
      return problem('BAD_REQUEST', 'the request body is not valid JSON');
    case undefined:
      if (clientStatus(err) === undefined) return problem('INTERNAL', 'the node could not complete the request');
      return problem('BAD_REQUEST', 'the request cannot be read (check its path, Content-Type, charset and encoding)');
    default:
      return problem('BAD_REQUEST', 'the request body cannot be read (check Content-Type, charset and encoding)');
  }
}

export function sendProblem(res: Response, body: Problem): void {
  res.status(body.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(body));
}
