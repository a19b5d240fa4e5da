/** Codes of POST /verify: per-report checks (`reportErrors[].code`) and request-level 400s. */
export const VerifyRouteCodes = [
  'BAD_REPORT_ENTRY',
  'BAD_REPORT_TYPE',
  'BAD_ATTESTATION_REPORT',
  'REPORT_MISMATCH',
  'REPORT_MISSING',
  'RESPONSE_FIELDS_MISSING',
  'RESPONSE_FIELDS_MISMATCH',
  'RESPONSE_FIELDS_NOT_ENCODABLE',
  'REPORT_TYPE_MISMATCH',
  'HTTP_NO_REPORTS',
  'HTTP_TOO_MANY_REPORTS',
] as const;
export type VerifyRouteCode = (typeof VerifyRouteCodes)[number];
