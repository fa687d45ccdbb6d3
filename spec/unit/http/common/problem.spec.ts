import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ControlError } from '../../../../actors/control/control-error.js';
import { CONTROL_ERRORS } from '../../../../actors/errors/error-codes.js';
import { problem, problemFor } from '../../../../http/common/problem.js';

/** The error body-parser (http-errors) raises, with the fields the handler reads. */
function bodyParserError(status: number, type: string, message: string): Error {
  return Object.assign(new Error(message), { status, statusCode: status, type, expose: true, body: '{"api_key":"leak' });
}

test('a ControlError becomes a problem with its registry status, title and code', () => {
  const body = problemFor(new ControlError('FLOW_NOT_FOUND', 'no active flow "f-1"'));
  assert.equal(body, {
    type: 'urn:weir:problem:flow-not-found',
    title: 'No such active flow',
    status: 404,
    detail: 'no active flow "f-1"',
    code: 'FLOW_NOT_FOUND',
  });
});

test('the details of a ControlError travel as an extension member', () => {
  const body = problemFor(new ControlError('NOT_A_MEMBER', '"x" is not a member', { members: ['a', 'b'] }));
  assert.is(body.status, 422);
  assert.equal(body.details, { members: ['a', 'b'] });
});

test('every registry code maps to its own status and a distinct type', () => {
  const types = new Set<string>();
  for (const [code, { status, title }] of Object.entries(CONTROL_ERRORS)) {
    const body = problem(code as keyof typeof CONTROL_ERRORS, 'd');
    assert.is(body.status, status);
    assert.is(body.title, title);
    types.add(body.type);
  }
  assert.is(types.size, Object.keys(CONTROL_ERRORS).length);
});

test('a body over the limit is 413 BODY_TOO_LARGE', () => {
  const body = problemFor(bodyParserError(413, 'entity.too.large', 'request entity too large'));
  assert.is(body.status, 413);
  assert.is(body.code, 'BODY_TOO_LARGE');
});

test('malformed JSON is 400 BAD_REQUEST without quoting the body', () => {
  const body = problemFor(bodyParserError(400, 'entity.parse.failed', 'Unexpected token \'a\', "{"api_key":"leak" is not valid JSON'));
  assert.equal(body, {
    type: 'urn:weir:problem:bad-request',
    title: 'Malformed request',
    status: 400,
    detail: 'the request body is not valid JSON',
    code: 'BAD_REQUEST',
  });
});

test('an unreadable body (charset, encoding) is 400 BAD_REQUEST', () => {
  const body = problemFor(bodyParserError(415, 'charset.unsupported', 'unsupported charset "LATIN1"'));
  assert.is(body.status, 400);
  assert.is(body.code, 'BAD_REQUEST');
});

test('an unknown error is 500 INTERNAL and leaks neither message nor stack', () => {
  const body = problemFor(new Error('ENOENT: /etc/weir/secret-key.pem'));
  assert.equal(body, {
    type: 'urn:weir:problem:internal',
    title: 'Internal error',
    status: 500,
    detail: 'the node could not complete the request',
    code: 'INTERNAL',
  });
  assert.equal(problemFor('a thrown string').code, 'INTERNAL');
  assert.equal(problemFor(null).code, 'INTERNAL');
});

test.run();
