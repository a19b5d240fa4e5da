/**
 * Closed set of error codes raised by the startup trust steps: the reproducible-build fallback
 * (running get-enclave-id.sh), the ledger-node REST client and the live check against the ledger
 * program's measurement mappings.
 */
export const StartupCodes = [
  // reproducible build (get-enclave-id.sh)
  'REPRO_BUILD_SCRIPT_NOT_FOUND',
  'REPRO_BUILD_SPAWN_FAILED',
  'REPRO_BUILD_FAILED',
  'REPRO_BUILD_TIMEOUT',
  'REPRO_BUILD_OUTPUT_TOO_LARGE',
  'REPRO_BUILD_MISSING_MARKER',
  'REPRO_BUILD_DUPLICATE_MARKER',
  'REPRO_BUILD_BAD_VALUE',
  // ledger node REST client
  'LEDGER_NODE_BAD_URL',
  'LEDGER_NODE_UNREACHABLE',
  'LEDGER_NODE_TIMEOUT',
  'LEDGER_NODE_RATE_LIMITED',
  'LEDGER_NODE_HTTP_ERROR',
  'LEDGER_NODE_BAD_RESPONSE',
  // live check
  'LIVECHECK_BAD_TARGET',
  'LIVECHECK_VALUE_ABSENT',
  'LIVECHECK_BAD_VALUE',
  'LIVECHECK_MISMATCH',
] as const;

export type StartupCode = (typeof StartupCodes)[number];
