/**
 * Closed lists of the codes raised by the typeA (Intel SGX DCAP quote v3) verifier.
 * QUOTE_* = the quote bytes themselves (envelope, layout); TYPEA_* = collateral and verification.
 * CRL_* codes live next to the CRL parser (src/attestation/x509/crl.ts); certificate chain
 * failures keep their X509_* codes (messages prefixed with the chain's label).
 */
import type { DomainCode } from '../../errorCodes.js';
import { VerifierError } from '../../errors.js';

export type QuoteCode = DomainCode<'quote'>;

export type TypeACode = DomainCode<'typeA'>;

export function quoteError(code: QuoteCode, message: string): never {
  throw new VerifierError<QuoteCode>(code, `typeA quote: ${message}`);
}

export function typeAError(code: TypeACode, message: string, options?: ErrorOptions): never {
  throw new VerifierError<TypeACode>(code, `typeA: ${message}`, options);
}
