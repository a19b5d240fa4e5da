/** Shared assertions on the verifier's typed errors. */
import { expect } from 'vitest';
import { VerifierError, type AnyVerifierError } from '../../src/errors.js';

/** What codeOf returns when the call did not throw. */
export const NO_ERROR = 'OK';

/** The VerifierError code `fn` throws, or NO_ERROR; any other exception is rethrown (a test failure). */
export function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof VerifierError) return e.code;
    throw e;
  }
  return NO_ERROR;
}

/** The VerifierError `p` rejects with; fails the test when it resolves or rejects otherwise. */
export async function rejection(p: Promise<unknown>): Promise<AnyVerifierError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(VerifierError);
    return e as AnyVerifierError;
  }
  throw new Error('expected a rejection');
}
