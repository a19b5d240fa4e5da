/**
 * The outcome each error code gives a report (src/errorCodes.ts traits): `unverifiable` when the
 * verifier could not decide (PCCS or collateral unavailable or unusable, pool refused or timed out,
 * ledger node down, its own set-up), `invalid` when a check failed on the evidence. One table
 * decides: `outcomeOfCode`, `outcomeFor` and `traitsOf(code).outcome` agree.
 */
import { describe, expect, it } from 'vitest';
import { codesOf, ERROR_CODES, outcomeFor, outcomeOfCode, traitsOf, type ErrorCode } from '../../../src/errorCodes.js';

const unverifiable: ErrorCode[] = [
  // the PCCS and collateral could not be had
  ...codesOf('pccs'),
  'TYPEA_COLLATERAL_UNAVAILABLE',
  'COLLATERAL_DIR_INVALID',
  // the collateral the operator's PCCS or directory supplied is unusable (never part of the report)
  ...codesOf('crl'),
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
  'TYPEA_PCK_CRL_ISSUER_MISMATCH',
  'TYPEA_FMSPC_MISMATCH',
  'TYPEA_PCE_ID_MISMATCH',
  // the pool refused the work, timed it out or lost it
  ...codesOf('pool'),
  // the ledger node could not be asked or answered wrongly; nothing configured to ask
  ...codesOf('ledgerNode').filter((c) => c !== 'LEDGER_TX_NOT_FOUND'),
  'LEDGER_NODE_NOT_CONFIGURED',
  'LEDGER_WATCH_NOT_CONFIGURED',
  'INTERNAL_ERROR',
];

/** Failures of the report's own checks: a verdict on the evidence. */
const invalid: ErrorCode[] = [
  ...codesOf('aleo'),
  ...codesOf('proofData'),
  ...codesOf('era'),
  ...codesOf('cbor'),
  ...codesOf('quote'),
  ...codesOf('typeB'),
  ...codesOf('response'),
  'X509_CHAIN_BAD_SIGNATURE',
  'X509_CHAIN_EXPIRED',
  'X509_CHAIN_UNTRUSTED_ROOT',
  'TYPEA_PCK_CHAIN_INVALID',
  'TYPEA_PCK_CERT_REVOKED',
  'TYPEA_PCK_CA_REVOKED',
  'TYPEA_QE_REPORT_BAD_SIGNATURE',
  'TYPEA_QE_REPORT_DATA_MISMATCH',
  'TYPEA_QE_MRSIGNER_MISMATCH',
  'TYPEA_ISV_REPORT_BAD_SIGNATURE',
  'TYPEA_TCB_LEVEL_NOT_FOUND',
  'TYPEA_QE_TCB_LEVEL_NOT_FOUND',
  'REPORT_UNKNOWN_KIND',
  'USERDATA_HASH_MISMATCH',
  'TYPEA_TCB_STATUS_REJECTED',
  'TYPEA_TCB_ADVISORY_REJECTED',
  'TYPEA_DEBUG_ENCLAVE',
  'TYPEA_UNIQUE_ID_MISMATCH',
  'TYPEA_REPORT_DATA_NOT_ZERO',
  'TYPEB_PCR_MISMATCH',
  'TYPEB_PCR_MISSING',
  'TYPEB_USER_DATA_LENGTH',
  'TYPEB_NONCE_MISMATCH',
  'LEDGER_TRANSITION_MALFORMED',
];

describe('the outcome of each error code', () => {
  it.each(unverifiable)('%s: unverifiable (the verifier could not decide)', (code) => {
    expect(traitsOf(code).outcome).toBe('unverifiable');
    expect(outcomeOfCode(code)).toBe('unverifiable');
    expect(outcomeFor(false, code)).toBe('unverifiable');
  });

  it.each(invalid)('%s: invalid (a check failed on the evidence)', (code) => {
    expect(traitsOf(code).outcome).toBe('invalid');
    expect(outcomeFor(false, code)).toBe('invalid');
  });

  it('every refusal, every 502 and 503 is unverifiable; every verdict in a 200 body is either', () => {
    for (const code of ERROR_CODES) {
      const t = traitsOf(code);
      if (t.refused || t.status === 502 || t.status === 503) expect(t.outcome, code).toBe('unverifiable');
      expect(['invalid', 'unverifiable'], code).toContain(t.outcome);
    }
  });

  it('valid when the report is valid; a code this build does not know is invalid', () => {
    expect(outcomeFor(true, undefined)).toBe('valid');
    expect(outcomeFor(false, undefined)).toBe('invalid');
    expect(outcomeOfCode('NOT_A_CODE' as ErrorCode)).toBe('invalid');
  });

  it('an unanswered code (the upstream did not answer) is a dependency failure: unverifiable and retryable, never a verdict on the evidence', () => {
    const unanswered = ERROR_CODES.filter((c) => traitsOf(c).unanswered === true);
    expect(unanswered.length).toBeGreaterThan(0);
    for (const c of unanswered) expect([c, traitsOf(c).outcome, traitsOf(c).retryable]).toEqual([c, 'unverifiable', true]);
    // A PCCS that answered "no such document" did answer: its absence is remembered.
    expect(traitsOf('PCCS_NOT_FOUND').unanswered).toBeUndefined();
  });
});
