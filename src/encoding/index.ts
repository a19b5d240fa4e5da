/** Oracle proof-data codec (ledger-encoding.md §2). */
export { decodeProofData } from './decode.js';
export { encodeProofData, padProofData, PROOF_DATA_SIZE, TOKEN_ID_BYTE, type EncodeOptions } from './encode.js';
export { prepareAttestationData, PRICE_FEED_LENGTHS, MAX_FLOAT_PRECISION } from './attestationData.js';
export { truncateFloatString, formatScaledFloat, formatDoubleFixed } from './float.js';
export type { ProofDataCode, ProofDataEncodeCode } from './errors.js';
export {
  ERAS, USER_DATA_CHUNK_COUNTS, TOKEN_IDS, detectEras, decodeUserDataBytes, encodingCandidates, parseUserData, requestHashes,
} from './eras/index.js';
export type { Era, EraCode, EraDetection, DecodedUserData, RequestSlot, RequestHashes } from './eras/index.js';
export type { DecodedRequest, DecodedData, EncodingOptions, ProofDataInput, ResponseFormat, ValueEncoding, EncodingEra } from './types.js';
