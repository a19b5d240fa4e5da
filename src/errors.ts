import type { ErrorCode } from './errorCodes.js';

/**
 * One error type for every failure the verifier reports. `code` is a stable, machine-readable
 * identifier (used in metrics and by API clients); `message` is the precise human-readable reason
 * that ends up in `errorString`. Each domain declares its own closed set of codes next to its code
 * (e.g. `src/aleo/errors.ts`); `src/errorCodes.ts` gathers them.
 */
export class VerifierError<C extends ErrorCode> extends Error {
  override readonly name = 'VerifierError';
  readonly code: C;

  constructor(code: C, message: string, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
  }
}

/** A VerifierError with any declared code. */
export type AnyVerifierError = VerifierError<ErrorCode>;

export function isVerifierError(e: unknown): e is AnyVerifierError {
  return e instanceof VerifierError;
}
