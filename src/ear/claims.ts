/**
 * The claims-set of an EAR (EAT Attestation Result) for one verdict, built from the verdict alone
 * (no clock, no key, no I/O): the Veraison EAR profile's claim names (`ear.status`,
 * `ear.trustworthiness-vector`, `ear.appraisal-policy-id`, `ear.verifier-id`, `submods`), one
 * submodule named after the report kind, and this verifier's own claims under CLAIM_PREFIX.
 * docs/ear.md is the mapping from verdicts and checks to tiers and trustworthiness claims.
 */
import type { Outcome } from '../errorCodes.js';
import type { CheckResult } from '../verify/checks.js';

/** The EAT profile whose claim names these are (veraison/ear's EatProfile). */
export const EAR_PROFILE = 'tag:github.com,2023:veraison/ear';
/** The media type of an EAR JWT: EAT's JWT type (RFC 9782) with the profile as its parameter. */
export const EAR_MEDIA_TYPE = `application/eat+jwt; eat_profile="${EAR_PROFILE}"`;
/** The prefix of this verifier's own claims in an appraisal (an EAR extension, docs/ear.md). */
export const CLAIM_PREFIX = 'org.aleo-oracle-verifier.';
/** The submodule of a verdict reached before the report kind was known. */
export const UNKNOWN_KIND_SUBMOD = 'unknown';

export type TrustTier = 'none' | 'affirming' | 'warning' | 'contraindicated';
/** AR4SI trustworthiness claims of the vector (integers, veraison/ear trustclaim.go). */
export type TrustVector = Partial<Record<'instance-identity' | 'configuration' | 'executables' | 'file-system' | 'hardware' | 'runtime-opaque' | 'storage-opaque' | 'sourced-data', number>>;

/** A verdict as this verifier gives it (POST /decodeReport's body, a reverify record). */
export interface VerdictFacts {
  reportType?: string;
  outcome: Outcome;
  errorCode?: string;
  checks?: readonly CheckResult[];
}

/** What the EAR says beside the verdict. */
export interface EarContext {
  /** Seconds since the epoch (EAT forbids a floating-point iat). */
  iat: number;
  /** `name/version` of this build (ear.verifier-id.build). */
  build: string;
  developer: string;
  /** The policy digest (src/verify/policy.ts policyDigest). */
  policyDigest: string;
  /** SHA-256 (hex) of the report and of the userData (absent where the verdict's record has none). */
  evidence?: { report: string; userData: string };
  /** This verifier's own claims of the verdict (transaction id, program, era), written under CLAIM_PREFIX. */
  extra?: Readonly<Record<string, string | number | boolean>>;
}

const TIER_OF: Record<Outcome, TrustTier> = { valid: 'affirming', invalid: 'contraindicated', unverifiable: 'none' };

/** Which checks speak for which trustworthiness claim: its value when all passed, when one failed. */
const VECTOR_RULES: readonly { claim: keyof TrustVector; ids: readonly string[]; passed: number; failed: number }[] = [
  // The quote's / document's signature chain to the pinned vendor root: genuine hardware (2), else cryptographic validation failed (99).
  { claim: 'hardware', ids: ['typeA.pckChain', 'typeA.qeSignature', 'typeA.qeReportData', 'typeA.isvSignature', 'typeB.chain', 'typeB.signature'], passed: 2, failed: 99 },
  // TCB status and the debug rule: approved configuration (2), else unsupportable (96).
  { claim: 'configuration', ids: ['typeA.tcbStatus', 'policy.tcbStatus', 'policy.debug', 'typeB.debug'], passed: 2, failed: 96 },
  // The measurement accept-list (MRENCLAVE, PCR0-2): approved run-time (2), else unrecognized run-time (33).
  { claim: 'executables', ids: ['policy.uniqueId', 'policy.pcrs'], passed: 2, failed: 33 },
];

/** The trustworthiness vector of the checks that ran: a claim only where each of its checks ran. */
export function trustVectorOf(checks: readonly CheckResult[]): TrustVector {
  const status = new Map(checks.map((c) => [c.id, c.status]));
  const vector: TrustVector = {};
  for (const rule of VECTOR_RULES) {
    const mine = rule.ids.filter((id) => status.has(id)).map((id) => status.get(id));
    if (mine.length === 0) continue;
    if (mine.includes('failed')) vector[rule.claim] = rule.failed;
    else if (mine.every((s) => s === 'passed')) vector[rule.claim] = rule.passed;
  }
  return vector;
}

/** The binding result of a verdict: the binding check's status, `not_checked` when it never ran. */
export function bindingOf(checks: readonly CheckResult[] | undefined): 'passed' | 'failed' | 'not_checked' {
  const s = checks?.find((c) => c.id === 'binding')?.status;
  return s === 'passed' || s === 'failed' ? s : 'not_checked';
}

/** The EAR claims-set of one verdict. */
export function earClaims(v: VerdictFacts, ctx: EarContext): Record<string, unknown> {
  const status = TIER_OF[v.outcome];
  // An unverifiable verdict appraised nothing: no trustworthiness claim is made.
  const vector = v.outcome === 'unverifiable' ? {} : trustVectorOf(v.checks ?? []);
  const appraisal: Record<string, unknown> = {
    'ear.status': status,
    ...(Object.keys(vector).length > 0 ? { 'ear.trustworthiness-vector': vector } : {}),
    'ear.appraisal-policy-id': `sha256:${ctx.policyDigest}`,
    [`${CLAIM_PREFIX}outcome`]: v.outcome,
    ...(v.errorCode !== undefined ? { [`${CLAIM_PREFIX}error-code`]: v.errorCode } : {}),
    [`${CLAIM_PREFIX}binding`]: bindingOf(v.checks),
    ...(ctx.evidence ? { [`${CLAIM_PREFIX}report-sha256`]: ctx.evidence.report, [`${CLAIM_PREFIX}user-data-sha256`]: ctx.evidence.userData } : {}),
  };
  for (const [k, value] of Object.entries(ctx.extra ?? {})) appraisal[`${CLAIM_PREFIX}${k}`] = value;
  return {
    eat_profile: EAR_PROFILE,
    iat: Math.floor(ctx.iat),
    'ear.verifier-id': { build: ctx.build, developer: ctx.developer },
    submods: { [v.reportType ?? UNKNOWN_KIND_SUBMOD]: appraisal },
  };
}
