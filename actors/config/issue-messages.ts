import { z } from 'zod';
import { jsonPath, type ConfigProblem } from './problems.js';

// Messages name types and limits but never echo the input: it may be a secret.

function typeName(input: unknown): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'array';
  return typeof input;
}

function limit(origin: string, bound: number | bigint, word: 'least' | 'most'): string {
  if (origin === 'array') return word === 'least' && bound === 1 ? 'must not be empty' : `must have at ${word} ${bound} entries`;
  if (origin === 'string') return word === 'least' && bound === 1 ? 'must not be empty' : `must have at ${word} ${bound} characters`;
  return `must be at ${word} ${bound}`;
}

/** Generic messages for schema issues that carry no message of their own. */
export const issueMessage: z.core.$ZodErrorMap = (iss) => {
  switch (iss.code) {
    case 'invalid_type':
      if (iss.input === undefined) return 'is required';
      if (iss.expected === 'int' && typeof iss.input === 'number') return 'must be an integer';
      return `must be ${iss.expected === 'int' ? 'an integer' : `of type ${iss.expected}`}, not ${typeName(iss.input)}`;
    case 'too_small':
      if (iss.inclusive === false) return `must be greater than ${iss.minimum}`;
      return limit(iss.origin, iss.minimum, 'least');
    case 'too_big':
      if (iss.inclusive === false) return `must be less than ${iss.maximum}`;
      return limit(iss.origin, iss.maximum, 'most');
    case 'invalid_value':
      return `must be one of ${iss.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'unrecognized_keys':
      return iss.schema instanceof z.ZodObject ? `allowed: ${Object.keys(iss.schema.shape).join(', ')}` : undefined;
    default:
      return undefined;
  }
};

/** One problem per issue, and one per unknown key so each names its own path. */
export function issuesToProblems(issues: readonly z.core.$ZodIssue[]): ConfigProblem[] {
  return issues.flatMap((issue) => {
    if (issue.code !== 'unrecognized_keys') return [{ path: jsonPath(issue.path), message: issue.message }];
    const message = issue.message.startsWith('allowed: ') ? `unknown key (${issue.message})` : 'unknown key';
    return issue.keys.map((key) => ({ path: jsonPath([...issue.path, key]), message }));
  });
}
