import { z } from 'zod';

// The bodies of the control operations that take one. The REST routes and the IPC
// channel both parse with these schemas, so the same mistake earns the same words on
// either face. Unknown keys are refused: a misspelt field must not pass as absent.

/** A tag, id or name: any non-empty string. */
export const nonEmpty = z.string().min(1);

export const selectBody = z.strictObject({ member: nonEmpty });

export const modeBody = z.strictObject({
  mode: z.enum(['rule', 'global']),
  /** The outbound of `global`; ControlOps refuses `global` without one. */
  target: nonEmpty.nullable().optional(),
});

export const logLevelBody = z.strictObject({ level: nonEmpty });

/** Without `ids`, every dead letter of the sink is replayed. */
export const replayBody = z.strictObject({ ids: z.array(nonEmpty).optional() });
