/**
 * Closed set of error codes raised by the command-line front end (argument and input problems,
 * checkpoint and collateral-directory problems). Verification failures keep the core's codes.
 */
import type { DomainCode } from '../errorCodes.js';
import { VerifierError } from '../errors.js';

export type CliCode = DomainCode<'cli'>;

export function cliError(code: CliCode, message: string, cause?: unknown): VerifierError<CliCode> {
  return new VerifierError<CliCode>(code, message, cause === undefined ? undefined : { cause });
}

/** Exit codes of every command. */
export const EXIT = { ALL_VALID: 0, SOME_INVALID: 1, INCOMPLETE: 2 } as const;
