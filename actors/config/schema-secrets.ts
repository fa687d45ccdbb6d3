import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { Secret } from './secret.js';

/** Where `{ "env" }` and `{ "file" }` secrets are looked up. */
export interface SecretSources {
  /** Directory that relative secret file paths are resolved against (the config file's). */
  baseDir: string;
  env: NodeJS.ProcessEnv;
  /**
   * True: a secret that cannot be read (its variable unset, its file missing) stands as
   * an empty one instead of a problem: for an offline command that runs without the
   * node's environment and uses what it finds (the Redis URL, not the tokens).
   * @defaultValue false
   */
  lenient?: boolean;
}

/** A secret as written in the config: inline, from an environment variable, or from a file. */
export const secretInputSchema = z.union(
  [
    // Empty is refused while resolving ('secret is empty'); the bound is for editors.
    z.string().meta({ minLength: 1 }),
    z.strictObject({ env: z.string().min(1) }),
    z.strictObject({ file: z.string().min(1) }),
  ],
  {
    error: (iss) =>
      iss.code === 'invalid_union' ? 'must be a string, { "env": NAME } or { "file": PATH }' : undefined,
  },
).meta({
  id: 'Secret',
  description: 'A secret: inline, { "env": NAME } or { "file": PATH } (relative to the config file; trailing newline trimmed).',
});

export type SecretInput = z.input<typeof secretInputSchema>;

type Lookup = { value: string } | { problem: string };

function readFileSecret(file: string, baseDir: string): Lookup {
  const full = path.resolve(baseDir, file);
  let text: string;
  try {
    text = fs.readFileSync(full, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'read error';
    return { problem: `cannot read secret file ${full} (${code})` };
  }
  // Files written by `echo` or editors end with a newline that is not part of the secret.
  const value = text.replace(/[\r\n]+$/, '');
  return value === '' ? { problem: `secret file ${full} is empty` } : { value };
}

function lookUp(input: SecretInput, sources: SecretSources): Lookup {
  const found = lookUpStrictly(input, sources);
  return 'problem' in found && sources.lenient ? { value: '' } : found;
}

function lookUpStrictly(input: SecretInput, sources: SecretSources): Lookup {
  if (typeof input === 'string') return input === '' ? { problem: 'secret is empty' } : { value: input };
  if ('env' in input) {
    const value = sources.env[input.env];
    if (value === undefined) return { problem: `environment variable ${input.env} is not set` };
    return value === '' ? { problem: `environment variable ${input.env} is empty` } : { value };
  }
  return readFileSecret(input.file, sources.baseDir);
}

/**
 * Validates a secret and resolves it to a `Secret`; problems never include the value.
 * `minLength` refuses a shorter one (not when lenient: an offline command only reads
 * the config).
 */
export function secretSchema(sources: SecretSources, minLength = 1) {
  return secretInputSchema.transform((input, ctx) => {
    const found = lookUp(input, sources);
    if ('problem' in found) {
      ctx.addIssue({ code: 'custom', message: found.problem });
      return z.NEVER;
    }
    if (!sources.lenient && found.value.length < minLength) {
      ctx.addIssue({ code: 'custom', message: `must be at least ${minLength} characters (it is ${found.value.length})` });
      return z.NEVER;
    }
    return new Secret(found.value);
  });
}

export type SecretSchema = ReturnType<typeof secretSchema>;
