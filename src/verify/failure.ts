import { isVerifierError } from '../errors.js';
import type { FailureInfo } from './types.js';

/** Maps anything thrown inside the core to the failure shown to users; unexpected errors are not leaked verbatim. */
export function toFailure(e: unknown): FailureInfo {
  if (isVerifierError(e)) return { code: e.code, message: e.message };
  return { code: 'INTERNAL_ERROR', message: 'internal error during verification' };
}
