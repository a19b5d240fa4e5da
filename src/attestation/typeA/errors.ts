/**
 * Closed lists of the codes raised by the typeA (Intel SGX DCAP quote v3) verifier.
 * QUOTE_* = the quote bytes themselves (envelope, layout); TYPEA_* = collateral and verification.
 * CRL_* codes live next to the CRL parser (src/attestation/x509/crl.ts); certificate chain
 * failures keep their X509_* codes (messages prefixed with the chain's label).
 */
import { VerifierError } from '../../errors.js';

export const QuoteCodes = [
  'QUOTE_NOT_BYTES',
  'QUOTE_BAD_ENVELOPE',
  'QUOTE_TRUNCATED',
  'QUOTE_TRAILING_BYTES',
  'QUOTE_UNSUPPORTED_VERSION',
  'QUOTE_TDX_NOT_SUPPORTED',
  'QUOTE_UNSUPPORTED_TEE_TYPE',
  'QUOTE_UNSUPPORTED_KEY_TYPE',
  'QUOTE_BAD_QE_VENDOR',
  'QUOTE_BAD_CERT_DATA_TYPE',
  'QUOTE_BAD_PCK_CHAIN',
] as const;
export type QuoteCode = (typeof QuoteCodes)[number];

export const TypeACodes = [
  // collateral shape and signed bodies
  'TYPEA_COLLATERAL_MALFORMED',
  'TYPEA_TCB_INFO_MALFORMED',
  'TYPEA_TCB_INFO_UNSUPPORTED_VERSION',
  'TYPEA_TCB_INFO_BAD_SIGNATURE',
  'TYPEA_TCB_INFO_NOT_YET_VALID',
  'TYPEA_TCB_INFO_EXPIRED',
  'TYPEA_QE_IDENTITY_MALFORMED',
  'TYPEA_QE_IDENTITY_UNSUPPORTED_VERSION',
  'TYPEA_QE_IDENTITY_BAD_SIGNATURE',
  'TYPEA_QE_IDENTITY_NOT_YET_VALID',
  'TYPEA_QE_IDENTITY_EXPIRED',
  'TYPEA_TCB_SIGNING_CHAIN_INVALID',
  'TYPEA_TCB_SIGNING_CERT_REVOKED',
  // PCK certificate chain
  'TYPEA_PCK_CHAIN_INVALID',
  'TYPEA_PCK_CRL_ISSUER_MISMATCH',
  'TYPEA_PCK_CA_REVOKED',
  'TYPEA_PCK_CERT_REVOKED',
  'TYPEA_PCK_EXTENSION_MISSING',
  'TYPEA_PCK_EXTENSION_MALFORMED',
  'TYPEA_FMSPC_MISMATCH',
  'TYPEA_PCE_ID_MISMATCH',
  // QE report
  'TYPEA_QE_REPORT_BAD_SIGNATURE',
  'TYPEA_QE_REPORT_DATA_MISMATCH',
  'TYPEA_QE_MISCSELECT_MISMATCH',
  'TYPEA_QE_ATTRIBUTES_MISMATCH',
  'TYPEA_QE_MRSIGNER_MISMATCH',
  'TYPEA_QE_ISVPRODID_MISMATCH',
  'TYPEA_QE_TCB_LEVEL_NOT_FOUND',
  // ISV report
  'TYPEA_BAD_ATTESTATION_KEY',
  'TYPEA_ISV_REPORT_BAD_SIGNATURE',
  // platform TCB
  'TYPEA_TCB_LEVEL_NOT_FOUND',
] as const;
export type TypeACode = (typeof TypeACodes)[number];

export function quoteError(code: QuoteCode, message: string): never {
  throw new VerifierError<QuoteCode>(code, `typeA quote: ${message}`);
}

export function typeAError(code: TypeACode, message: string, options?: ErrorOptions): never {
  throw new VerifierError<TypeACode>(code, `typeA: ${message}`, options);
}
