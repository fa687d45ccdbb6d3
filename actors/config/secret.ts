import { inspect } from 'node:util';

const REDACTED = '[redacted]';

/**
 * A secret from the config (API key, password, token). The value sits in a private
 * field and only `reveal()` hands it out, so logging, JSON-encoding or interpolating
 * a config object can never leak it.
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toJSON(): string {
    return REDACTED;
  }

  toString(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}
