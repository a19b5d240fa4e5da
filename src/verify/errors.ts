export const VerifyCodes = [
  'REPORT_UNKNOWN_KIND',
  'USERDATA_HASH_MISMATCH',
  'TYPEA_TCB_STATUS_REJECTED',
  'TYPEA_TCB_ADVISORY_REJECTED',
  'TYPEA_DEBUG_ENCLAVE',
  'TYPEA_UNIQUE_ID_MISMATCH',
  'TYPEA_REPORT_DATA_NOT_ZERO',
  'TYPEA_COLLATERAL_UNAVAILABLE',
  'TYPEB_PCR_MISMATCH',
  'TYPEB_PCR_MISSING',
  'TYPEB_USER_DATA_LENGTH',
  'TYPEB_NONCE_MISMATCH',
  'REQUEST_BAD_NONCE',
  'INTERNAL_ERROR',
] as const;
export type VerifyCode = (typeof VerifyCodes)[number];

/** Codes of POST /verify's checks of one notarizer response (src/verify/attestationResponse.ts). */
export const ResponseCodes = [
  'BAD_ATTESTATION_REPORT',
  'REPORT_MISMATCH',
  'REPORT_MISSING',
  'RESPONSE_FIELDS_MISSING',
  'RESPONSE_FIELDS_MISMATCH',
  'RESPONSE_FIELDS_NOT_ENCODABLE',
  'REPORT_TYPE_MISMATCH',
] as const;
export type ResponseCode = (typeof ResponseCodes)[number];
