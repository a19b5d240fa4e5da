/**
 * `reverify --ear-out FILE`: after the scan, one signed EAR per update of the --out records, a
 * JSON line each ({ transactionId?, id?, ear }), then one line { summary } holding the signed audit
 * summary (src/ear/summary.ts): the range, the counts, the SHA-256 of the --out file and of the EAR
 * lines above it, and the completeness result. The key is EAR_SIGNING_KEY (docs/ear.md).
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { earSigningKey, EAR_SIGNING_KEY_ENV } from '../upstream/credentials.js';
import { earSigner } from '../ear/signer.js';
import { earIssuer, type EarIssuer } from '../ear/issuer.js';
import { auditSummaryClaims, type AuditSummary } from '../ear/summary.js';
import { readRecords } from './output.js';
import { cliError } from './errors.js';
import type { OutputRecord } from '../ledger/records/updateRecord.js';
import type { Outcome } from '../errorCodes.js';
import { REPORT_TYPES } from '../verify/kinds/index.js';

const VERDICTS = new Set<string>(['valid', 'invalid', 'unverifiable']);
const sha256 = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');

/** The issuer of EAR_SIGNING_KEY for --ear-out (checked before the scan starts). */
export async function earOutIssuer(policyDigest: string, env: NodeJS.ProcessEnv = process.env): Promise<EarIssuer> {
  const key = earSigningKey(env);
  if (key === undefined) throw cliError('CLI_USAGE', `reverify: --ear-out signs with the key in ${EAR_SIGNING_KEY_ENV} (PKCS#8 PEM or a private JWK, ES256 or EdDSA), which is not set`);
  return earIssuer(await earSigner(key), policyDigest);
}

/** This verifier's claims of one update record (docs/ear.md). */
function extraOf(r: OutputRecord): Record<string, string | number> {
  const era = (r.decodedData as { era?: unknown } | undefined)?.era;
  return {
    ...(r.transactionId !== undefined ? { 'transaction-id': r.transactionId } : {}),
    ...(r.transitionId !== undefined ? { 'transition-id': r.transitionId } : {}),
    ...(r.blockHeight !== undefined ? { 'block-height': r.blockHeight } : {}),
    ...(r.program !== undefined ? { program: r.program } : {}),
    ...(r.function !== undefined ? { function: r.function } : {}),
    ...(r.id !== undefined ? { id: r.id } : {}),
    ...(typeof era === 'number' || typeof era === 'string' ? { era } : {}),
  };
}

export interface EarOutRun {
  file: string;
  outFile: string;
  issuer: EarIssuer;
  policyDigest: string;
  range: AuditSummary['range'];
  completeness: string;
}

/** Writes the EARs of the --out records and the signed summary; returns how many EARs. */
export async function writeEarOut(o: EarOutRun): Promise<number> {
  const recordsBytes = readFileSync(o.outFile);
  const counts: Record<string, number> = {};
  let lines = '';
  let ears = 0;
  for (const r of readRecords(o.outFile)) {
    const verdict = r.kind !== 'measurement' && r.outcome !== undefined && VERDICTS.has(r.outcome) ? (r.outcome as Outcome) : undefined;
    const key = verdict ?? r.outcome ?? r.kind;
    counts[key] = (counts[key] ?? 0) + 1;
    if (!verdict) continue;
    const jwt = await o.issuer.issue(
      { ...((REPORT_TYPES as readonly string[]).includes(r.kind) ? { reportType: r.kind } : {}), outcome: verdict, ...(r.errorCode ? { errorCode: r.errorCode } : {}), ...(r.checks ? { checks: r.checks } : {}) },
      r.evidence ? { report: r.evidence.report, userData: r.evidence.userData } : undefined,
      extraOf(r),
    );
    lines += `${JSON.stringify({ ...(r.transactionId !== undefined ? { transactionId: r.transactionId } : {}), ...(r.id !== undefined ? { id: r.id } : {}), ear: jwt })}\n`;
    ears++;
  }
  const summary = await o.issuer.signClaims(
    auditSummaryClaims({ range: o.range, counts, recordsSha256: sha256(recordsBytes), earsSha256: sha256(lines), completeness: o.completeness, policyDigest: o.policyDigest }),
  );
  writeFileSync(o.file, `${lines}${JSON.stringify({ summary })}\n`);
  return ears;
}
