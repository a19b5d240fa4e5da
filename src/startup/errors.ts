/**
 * Closed set of error codes raised by the startup trust steps: the reproducible-build fallback
 * (running get-enclave-id.sh) and the live check against the ledger program's measurement mappings.
 */
import type { DomainCode } from '../errorCodes.js';

export type StartupCode = DomainCode<'startup'>;
