/** Closed set of error codes of the oracle proof-data codec (ledger-encoding.md §2). */
import type { DomainCode } from '../errorCodes.js';
export type ProofDataCode = DomainCode<'proofData'>;

/** Codes of the encoder side (values that the notarizer would refuse to encode). */
export type ProofDataEncodeCode = DomainCode<'proofDataEncode'>;
