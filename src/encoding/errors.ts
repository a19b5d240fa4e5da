/** Closed set of error codes of the oracle proof-data codec (ledger-encoding.md §2). */
export const ProofDataCodes = [
  'PROOF_DATA_TOO_SHORT',
  'PROOF_DATA_SECTION_OVERRUN',
  'PROOF_DATA_BAD_SECTION_LENGTH',
  'PROOF_DATA_BAD_FORMAT',
  'PROOF_DATA_BAD_ENCODING_OPTIONS',
  'PROOF_DATA_BAD_ATTESTATION_DATA',
  'PROOF_DATA_BAD_HEADERS',
  'PROOF_DATA_BAD_OPTIONAL_FIELDS',
  'PROOF_DATA_NONZERO_PADDING',
  'PROOF_DATA_VALUE_OUT_OF_RANGE',
  'PROOF_DATA_TOO_LONG',
] as const;
export type ProofDataCode = (typeof ProofDataCodes)[number];

/** Codes of the encoder side (values that the notarizer would refuse to encode). */
export const ProofDataEncodeCodes = [
  'ENCODE_UNKNOWN_VALUE_TYPE',
  'ENCODE_PRECISION_TOO_BIG',
  'ENCODE_BAD_PRECISION',
  'ENCODE_TOO_PRECISE',
  'ENCODE_SCIENTIFIC_NOTATION',
  'ENCODE_DECIMALLESS_SCIENTIFIC',
  'ENCODE_NEGATIVE_FLOAT',
  'ENCODE_FLOAT_PARSE',
  'ENCODE_FLOAT_LOSSY',
  'ENCODE_INT_PARSE',
  'ENCODE_VALUE_TOO_LONG',
  'ENCODE_BAD_RESPONSE_FORMAT',
  'ENCODE_BAD_HTML_RESULT_TYPE',
  'ENCODE_FIELD_TOO_LONG',
  'ENCODE_BAD_INPUT',
] as const;
export type ProofDataEncodeCode = (typeof ProofDataEncodeCodes)[number];
