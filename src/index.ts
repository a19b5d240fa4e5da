/**
 * Package entry: the verification core (for programs that embed the verifier), the worker pool,
 * the notarizer client library, the ledger codecs and the error codes.
 */
export { VerifierError, isVerifierError } from './errors.js';
export { ERROR_CODES, ERROR_CODES_BY_DOMAIN, type ErrorCode } from './errorCodes.js';
export { verifyReportBytes, verifyReportText, decodeUserData, decodeUserDataText, type VerifyDeps } from './verify/verifyReport.js';
export { createInProcessService } from './verify/service.js';
export type { DecodeOutcome, FailureInfo, Policy, ReportType, VerifierService, VerifyOutcome } from './verify/types.js';
export { VerifierPool, type PoolOptions } from './pool/pool.js';
export { loadConfig, resolveConfig, type Config } from './config/load.js';
export { parseChunkedStruct, formatChunkedStruct, USER_DATA_CHUNKS, REPORT_CHUNKS } from './aleo/struct.js';
export { formatUniqueId, formatProductId, formatPcrStruct } from './aleo/ids.js';
export { decodeProofData, encodeProofData, padProofData, truncateFloatString } from './encoding/index.js';
export {
  ERAS, USER_DATA_CHUNK_COUNTS, detectEras, decodeUserDataBytes, encodingCandidates, parseUserData, requestHashes,
  type Era, type DecodedRequest,
} from './encoding/index.js';
export { checkAttestationResponse, responseRequests, type ReportCheck, type ReportVerifier, type RequestFields } from './verify/attestationResponse.js';
// The client library exports its own AttestationResponse (what a notarizer answers); this is a /verify entry.
export { attestationResponseSchema, type AttestationResponse as VerifyReportEntry } from './verify/attestationResponseSchema.js';
export { hashReportData } from './hash/index.js';
export * from './client/index.js';
