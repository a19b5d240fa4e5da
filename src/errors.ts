import type { ErrorCode } from './errorCodes.js';

/**
 * One error type for every failure the verifier reports. `code` is a stable, machine-readable
 * identifier (used in metrics and by API clients); `message` is the precise human-readable reason
 * that ends up in `errorString`. The closed set of codes, with their traits, is one registry,
 * `src/errorCodes.ts`; each domain's `errors.ts` (e.g. `src/aleo/errors.ts`) names its slice of it
 * as a type (`DomainCode<'aleo'>`) and holds its error helpers.
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
