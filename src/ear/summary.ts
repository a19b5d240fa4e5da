/**
 * The claims of an audit's signed summary (`reverify --ear-out`): what was scanned, what was
 * found, the SHA-256 of the records written and of the EAR lines before it, and the completeness
 * result. Pure: the caller counts and hashes.
 */
import { CLAIM_PREFIX, EAR_PROFILE } from './claims.js';

export interface AuditSummary {
  /** The scanned range: block heights (inclusive), or the source's own units (lines, files). */
  range: { unit: string; from?: number; to?: number };
  /** Updates by outcome, and other records (measurements, unattested writes). */
  counts: Readonly<Record<string, number>>;
  /** SHA-256 (hex) of the --out JSONL file as written. */
  recordsSha256: string;
  /** SHA-256 (hex) of the EAR lines of the --ear-out file before the summary. */
  earsSha256: string;
  /** complete, incomplete, or not_checked (no --completeness, or the check could not run). */
  completeness: string;
  policyDigest: string;
}

/** The summary's claims-set (iat and ear.verifier-id are added by the issuer). */
export function auditSummaryClaims(s: AuditSummary): Record<string, unknown> {
  return {
    eat_profile: EAR_PROFILE,
    submods: {
      audit: {
        // The summary appraises no attester itself: its verdicts are the per-update EARs.
        'ear.status': 'none',
        'ear.appraisal-policy-id': `sha256:${s.policyDigest}`,
        [`${CLAIM_PREFIX}range`]: s.range,
        [`${CLAIM_PREFIX}counts`]: s.counts,
        [`${CLAIM_PREFIX}records-sha256`]: s.recordsSha256,
        [`${CLAIM_PREFIX}ears-sha256`]: s.earsSha256,
        [`${CLAIM_PREFIX}completeness`]: s.completeness,
      },
    },
  };
}
