/**
 * Closed set of error codes raised by the command-line front end (argument and input problems,
 * checkpoint and collateral-directory problems). Verification failures keep the core's codes.
 */
import { VerifierError } from '../errors.js';

export const CliCodes = [
  'CLI_USAGE',
  'CLI_BAD_INPUT',
  'CLI_NO_TARGETS',
  'CLI_CHECKPOINT_MISMATCH',
  'CLI_CHECKPOINT_INVALID',
  'CLI_COLLATERAL_DIR_INVALID',
] as const;
export type CliCode = (typeof CliCodes)[number];

export function cliError(code: CliCode, message: string, cause?: unknown): VerifierError<CliCode> {
  return new VerifierError<CliCode>(code, message, cause === undefined ? undefined : { cause });
}

/** Exit codes of every command. */
export const EXIT = { ALL_VALID: 0, SOME_INVALID: 1, INCOMPLETE: 2 } as const;
