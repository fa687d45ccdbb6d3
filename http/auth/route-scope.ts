import type { Request, RequestHandler, Response } from 'express';
import type { ParamsDictionary } from 'express-serve-static-core';
import { auditTarget, type AuditRecorder } from '../../actors/control/audit-trail.js';
import { WRITE_OPERATIONS, type WriteOperation } from '../../actors/control/write-operations.js';
import { SCOPES, type Scope } from '../../actors/config/schema-control.js';
import { WeirError } from '../../actors/errors/weir-error.js';
import { problem, problemFor, type Problem } from '../common/problem.js';
import { callerOf } from './request-caller.js';

/** Marks the first handler of every route with the scope it needs; a spec walks the routers and reads it. */
export const ROUTE_SCOPE = Symbol.for('weir.route-scope');

export type ScopedHandler = RequestHandler & { [ROUTE_SCOPE]: Scope };

/** A face of the control plane: how it names itself in the audit trail and answers a refusal. */
export interface RouteFace {
  transport: 'http' | 'clash';
  audit: AuditRecorder;
  refuse(res: Response, body: Problem): void;
}

/** Whether a key of scope `held` may do what needs `needed`: each scope takes in the ones before it. */
export function covers(held: Scope, needed: Scope): boolean {
  return SCOPES.indexOf(held) >= SCOPES.indexOf(needed);
}

function marked(scope: Scope, handler: RequestHandler): ScopedHandler {
  return Object.assign(handler, { [ROUTE_SCOPE]: scope });
}

const READABLE: ScopedHandler = marked('read', (_req, _res, next) => next());

/**
 * The guard of a read route (every GET and stream): every key reads. A route with
 * path parameters names them (`readable<{ tag: string }>()`), so its handler reads
 * each as one string.
 */
export function readable<P = ParamsDictionary>(): RequestHandler<P> & { [ROUTE_SCOPE]: Scope } {
  return READABLE as unknown as RequestHandler<P> & { [ROUTE_SCOPE]: Scope };
}

/** A request of a route whose path parameters are all `:name` ones (no wildcard): each is one string. */
export type NamedParamsRequest = Request<Record<string, string>>;

/** A request body's fields, for the audit target; {} for a body that is no object. */
export function bodyFields(body: unknown): Record<string, unknown> {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

function codeOf(err: unknown): string {
  return err instanceof WeirError ? err.code : problemFor(err).code;
}

/**
 * A control write's handlers: a guard that refuses a key whose scope does not cover
 * the operation (403 OUT_OF_SCOPE), then `handler`, whose result (or refusal) the
 * audit trail records with the caller and `fieldsOf` the request (IPC's field names).
 */
export function write(
  face: RouteFace,
  op: WriteOperation,
  fieldsOf: (req: NamedParamsRequest) => Record<string, unknown>,
  handler: (req: NamedParamsRequest, res: Response) => unknown,
): [ScopedHandler, RequestHandler] {
  const needed = WRITE_OPERATIONS[op];
  const record = (req: NamedParamsRequest, res: Response, result: 'ok' | 'error', code: string | null): void => {
    const caller = callerOf(res);
    face.audit({
      caller: { transport: face.transport, key_id: caller?.key_id ?? null, remote: req.socket.remoteAddress ?? null },
      operation: op,
      target: auditTarget(op, fieldsOf(req)),
      result,
      code,
    });
  };
  // Every write route's path has named parameters only, so each is a string (express types allow arrays for wildcards).
  const named = (req: Request): NamedParamsRequest => req as NamedParamsRequest;
  const guard = marked(needed, (req, res, next) => {
    const caller = callerOf(res);
    if (caller !== null && covers(caller.scope, needed)) return next();
    record(named(req), res, 'error', 'OUT_OF_SCOPE');
    face.refuse(res, problem('OUT_OF_SCOPE', `${op} needs a key of scope ${needed}${caller ? `; key "${caller.key_id}" has ${caller.scope}` : ''}`));
  });
  const run: RequestHandler = async (req, res) => {
    try {
      await handler(named(req), res);
    } catch (err) {
      record(named(req), res, 'error', codeOf(err));
      throw err;
    }
    record(named(req), res, 'ok', null);
  };
  return [guard, run];
}
