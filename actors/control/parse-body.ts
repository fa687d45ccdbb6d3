import type { z } from 'zod';
import { ControlError } from './control-error.js';

/**
 * Validates a request body; a failure is INVALID_BODY with every reason. Zod's
 * messages name fields and expected types, never the values sent.
 */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const reasons = result.error.issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : 'body'}: ${i.message}`);
  throw new ControlError('INVALID_BODY', reasons.join('; '));
}
